import type { PlannedPageInfo } from '@/features/planned-pages/types';

export const DASHBOARD_PLANNED_PAGES: PlannedPageInfo[] = [
  {
    route: 'sign-up',
    href: '/sign-up',
    title: 'Sign up',
    description: 'Register your business and verify your e-mail address.',
  },
  {
    route: 'forgot-password',
    href: '/forgot-password',
    title: 'Forgot password',
    description: 'Reset your password with a code sent by e-mail.',
  },
  {
    route: 'onboarding',
    href: '/onboarding',
    title: 'Onboarding',
    description:
      'Business profile, representative and KYC result, documents, submission and review notes, guided by what is still due.',
  },
  {
    route: 'accounts',
    href: '/accounts',
    title: 'Virtual accounts',
    description: 'Create and filter accounts; in the sandbox, simulate a credit.',
  },
  {
    route: 'accounts/:accountNumber',
    title: 'Virtual account',
    params: { accountNumber: 'Account number' },
    description: 'Details, transactions, statement download; deactivate, reactivate or close.',
  },
  {
    route: 'api-keys',
    href: '/api-keys',
    title: 'API keys',
    description: 'Sandbox and live keys; a new secret is shown once.',
  },
  {
    route: 'team',
    href: '/team',
    title: 'Team',
    description: 'The people of your business who work with the platform.',
  },
  {
    route: 'webhooks',
    href: '/webhooks',
    title: 'Webhooks',
    description: 'Endpoint and secret rotation, delivery log, events and redelivery.',
  },
];
