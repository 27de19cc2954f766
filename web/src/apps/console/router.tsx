import { createAppRouter } from '@/components/layout/create-app-router';
import { APP_NAME, ConsoleLayout, RequireOperator } from './layouts';

/*
 * Each page is a chunk of its own, loaded when the page is first shown: the sign-in page loads the
 * shell and sign-in only, not the review screens, the audit log or pdf.js.
 */
export const router = createAppRouter({
  layout: <ConsoleLayout />,
  appName: APP_NAME,
  pages: [
    { index: true, lazy: () => import('./routes/home').then((m) => ({ Component: m.HomeRoute })) },
    {
      path: 'sign-in',
      lazy: () => import('./routes/sign-in').then((m) => ({ Component: m.SignInRoute })),
    },
    {
      path: 'setup',
      lazy: () => import('./routes/setup').then((m) => ({ Component: m.SetupRoute })),
    },
    {
      element: <RequireOperator />,
      children: [
        {
          path: 'review',
          lazy: () => import('./routes/review').then((m) => ({ Component: m.ReviewRoute })),
        },
        {
          path: 'partners/:companyId',
          lazy: () => import('./routes/partner').then((m) => ({ Component: m.PartnerRoute })),
        },
        {
          path: 'money-in',
          lazy: () => import('./routes/money-in').then((m) => ({ Component: m.MoneyInRoute })),
        },
        {
          path: 'transfers',
          lazy: () => import('./routes/transfers').then((m) => ({ Component: m.TransfersRoute })),
        },
        {
          path: 'reports/daily',
          lazy: () => import('./routes/daily-report').then((m) => ({ Component: m.DailyReportRoute })),
        },
        {
          path: 'audit',
          lazy: () => import('./routes/audit').then((m) => ({ Component: m.AuditRoute })),
        },
        {
          path: 'operators',
          lazy: () => import('./routes/operators').then((m) => ({ Component: m.OperatorsRoute })),
        },
        {
          path: 'account',
          lazy: () => import('./routes/account').then((m) => ({ Component: m.AccountRoute })),
        },
      ],
    },
  ],
});
