import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { NotFoundPage } from '@/components/not-found-page';
import { basename } from '@/lib/basename';
import { APP_NAME, DashboardLayout, RequirePartner } from './layouts';
import { createDashboardQueryClient } from './query-client';
import {
  ForgotPasswordRoute,
  HomeRoute,
  ResetPasswordRoute,
  SignInRoute,
  SignUpRoute,
  VerifyRoute,
} from './routes/account-routes';
import { AccountRoute, AccountsRoute } from './routes/accounts';
import { ApiKeysRoute, DevelopersLayout, EventsRoute, WebhooksRoute } from './routes/developers';
import { OnboardingRoute } from './routes/onboarding';
import { OverviewRoute } from './routes/overview';
import { TeamRoute } from './routes/team';

const router = createBrowserRouter(
  [
    {
      element: <DashboardLayout />,
      children: [
        { index: true, element: <HomeRoute /> },
        { path: 'sign-in', element: <SignInRoute /> },
        { path: 'sign-up', element: <SignUpRoute /> },
        { path: 'verify', element: <VerifyRoute /> },
        { path: 'forgot-password', element: <ForgotPasswordRoute /> },
        { path: 'reset-password', element: <ResetPasswordRoute /> },
        {
          element: <RequirePartner />,
          children: [
            { path: 'overview', element: <OverviewRoute /> },
            { path: 'onboarding', element: <OnboardingRoute /> },
            { path: 'accounts', element: <AccountsRoute /> },
            { path: 'accounts/:accountNumber', element: <AccountRoute /> },
            {
              path: 'developers',
              element: <DevelopersLayout />,
              children: [
                { index: true, element: <Navigate to="/developers/api-keys" replace /> },
                { path: 'api-keys', element: <ApiKeysRoute /> },
                { path: 'webhooks', element: <WebhooksRoute /> },
                { path: 'events', element: <EventsRoute /> },
              ],
            },
            { path: 'team', element: <TeamRoute /> },
          ],
        },
        { path: '*', element: <NotFoundPage appName={APP_NAME} /> },
      ],
    },
  ],
  { basename },
);

export function DashboardApp() {
  const [queryClient] = useState(createDashboardQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
