import type { PlannedPageInfo } from '@/features/planned-pages/types';

export const CONSOLE_PLANNED_PAGES: PlannedPageInfo[] = [
  {
    route: 'review',
    href: '/review',
    title: 'Review queue',
    description: 'Partners awaiting a decision, oldest first, with what each one waits on.',
  },
  {
    route: 'partners/:companyId',
    title: 'Partner',
    params: { companyId: 'Company ID' },
    description:
      'Profile, representative with KYC result and masked BVN, documents previewed inline, checklist, history and decisions.',
  },
  {
    route: 'audit',
    href: '/audit',
    title: 'Audit log',
    description: 'Every decision and change, filtered by partner, actor, action and date.',
  },
  {
    route: 'operators',
    href: '/operators',
    title: 'Operators',
    description: 'Operator accounts and their sign-in with password and one-time code.',
  },
];
