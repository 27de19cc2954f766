import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { NotFoundPage } from '@/components/not-found-page';
import { basename } from '@/lib/basename';
import { createQueryClient } from '@/lib/query-client';
import { APP_NAME, ConsoleLayout, RequireOperator } from './layouts';
import { AccountRoute } from './routes/account';
import { AuditRoute } from './routes/audit';
import { HomeRoute } from './routes/home';
import { OperatorsRoute } from './routes/operators';
import { PartnerRoute } from './routes/partner';
import { ReviewRoute } from './routes/review';
import { SetupRoute } from './routes/setup';
import { SignInRoute } from './routes/sign-in';

const router = createBrowserRouter(
  [
    {
      element: <ConsoleLayout />,
      children: [
        { index: true, element: <HomeRoute /> },
        { path: 'sign-in', element: <SignInRoute /> },
        { path: 'setup', element: <SetupRoute /> },
        {
          element: <RequireOperator />,
          children: [
            { path: 'review', element: <ReviewRoute /> },
            { path: 'partners/:companyId', element: <PartnerRoute /> },
            { path: 'audit', element: <AuditRoute /> },
            { path: 'operators', element: <OperatorsRoute /> },
            { path: 'account', element: <AccountRoute /> },
          ],
        },
        { path: '*', element: <NotFoundPage appName={APP_NAME} /> },
      ],
    },
  ],
  { basename },
);

export function ConsoleApp() {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
