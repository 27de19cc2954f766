import { Navigate } from 'react-router';
import { createAppRouter } from '@/components/layout/create-app-router';
import { APP_NAME, DashboardLayout } from './layouts';

/*
 * Each page is a chunk of its own, loaded when the page is first shown: the sign-in page loads the
 * shell and sign-in only, not the signed-in pages (their layout, with the environment banner, is
 * a chunk too).
 */
export const router = createAppRouter({
  layout: <DashboardLayout />,
  appName: APP_NAME,
  pages: [
    { index: true, lazy: () => import('./routes/home').then((m) => ({ Component: m.HomeRoute })) },
    {
      path: 'sign-in',
      lazy: () => import('./routes/sign-in').then((m) => ({ Component: m.SignInRoute })),
    },
    {
      path: 'sign-up',
      lazy: () => import('./routes/sign-up').then((m) => ({ Component: m.SignUpRoute })),
    },
    {
      path: 'verify',
      lazy: () => import('./routes/verify').then((m) => ({ Component: m.VerifyRoute })),
    },
    {
      path: 'forgot-password',
      lazy: () => import('./routes/forgot-password').then((m) => ({ Component: m.ForgotPasswordRoute })),
    },
    {
      path: 'reset-password',
      lazy: () => import('./routes/reset-password').then((m) => ({ Component: m.ResetPasswordRoute })),
    },
    {
      path: 'accept-invitation',
      lazy: () => import('./routes/accept-invitation').then((m) => ({ Component: m.AcceptInvitationRoute })),
    },
    {
      lazy: () => import('./signed-in-layout').then((m) => ({ Component: m.RequirePartner })),
      children: [
        {
          path: 'overview',
          lazy: () => import('./routes/overview').then((m) => ({ Component: m.OverviewRoute })),
        },
        {
          path: 'onboarding',
          lazy: () => import('./routes/onboarding').then((m) => ({ Component: m.OnboardingRoute })),
        },
        {
          path: 'accounts',
          lazy: () => import('./routes/accounts').then((m) => ({ Component: m.AccountsRoute })),
        },
        {
          path: 'accounts/:accountNumber',
          lazy: () => import('./routes/account').then((m) => ({ Component: m.AccountRoute })),
        },
        {
          path: 'accounts/:accountNumber/send',
          lazy: () => import('./routes/send-money').then((m) => ({ Component: m.SendMoneyRoute })),
        },
        {
          path: 'transfers',
          lazy: () => import('./routes/transfers').then((m) => ({ Component: m.TransfersRoute })),
        },
        {
          path: 'transfers/:transferId',
          lazy: () => import('./routes/transfer').then((m) => ({ Component: m.TransferRoute })),
        },
        {
          path: 'developers',
          lazy: () => import('./routes/developers').then((m) => ({ Component: m.DevelopersLayout })),
          children: [
            {
              index: true,
              lazy: () => import('./routes/developers').then((m) => ({ Component: m.DevelopersIndex })),
            },
            {
              path: 'api-keys',
              lazy: () => import('./routes/api-keys').then((m) => ({ Component: m.ApiKeysRoute })),
            },
            {
              path: 'webhooks',
              lazy: () => import('./routes/webhooks').then((m) => ({ Component: m.WebhooksRoute })),
            },
            {
              path: 'events',
              lazy: () => import('./routes/events').then((m) => ({ Component: m.EventsRoute })),
            },
            {
              path: 'events/:eventId',
              lazy: () => import('./routes/event').then((m) => ({ Component: m.EventRoute })),
            },
          ],
        },
        {
          path: 'settings',
          lazy: () => import('./routes/settings').then((m) => ({ Component: m.SettingsLayout })),
          children: [
            { index: true, element: <Navigate to="/settings/users" replace /> },
            {
              path: 'users',
              lazy: () => import('./routes/users').then((m) => ({ Component: m.UsersRoute })),
            },
            {
              path: 'officers',
              lazy: () => import('./routes/officers').then((m) => ({ Component: m.OfficersRoute })),
            },
            {
              path: 'security',
              lazy: () => import('./routes/security').then((m) => ({ Component: m.SecurityRoute })),
            },
          ],
        },
        // The directors and officers page was "Team" at /team before users had roles.
        { path: 'team', element: <Navigate to="/settings/officers" replace /> },
      ],
    },
  ],
});
