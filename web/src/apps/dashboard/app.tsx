import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { createBrowserRouter, Outlet, RouterProvider } from 'react-router';
import { AppShell } from '@/components/layout/app-shell';
import { AriaRouter } from '@/components/layout/aria-router';
import { NotFoundPage } from '@/features/planned-pages/components/not-found-page';
import { PlannedPage } from '@/features/planned-pages/components/planned-page';
import { basename } from '@/lib/basename';
import { createQueryClient } from '@/lib/query-client';
import { DASHBOARD_PLANNED_PAGES } from './planned-pages';
import { SignInRoute } from './routes/sign-in';

const APP_NAME = 'Partner dashboard';

function DashboardLayout() {
  return (
    <AriaRouter>
      <AppShell
        appName={APP_NAME}
        headerNote="For partner businesses"
        footer={
          <>
            <p>Banking-as-a-service for fintech partners.</p>
            {/* Outside the app: a plain link, not one through the router. */}
            <a href="/docs">API reference</a>
          </>
        }
      >
        <Outlet />
      </AppShell>
    </AriaRouter>
  );
}

const router = createBrowserRouter(
  [
    {
      element: <DashboardLayout />,
      children: [
        { index: true, element: <SignInRoute /> },
        ...DASHBOARD_PLANNED_PAGES.map((page) => ({
          path: page.route,
          element: <PlannedPage page={page} appName={APP_NAME} />,
        })),
        { path: '*', element: <NotFoundPage appName={APP_NAME} /> },
      ],
    },
  ],
  { basename },
);

export function DashboardApp() {
  const [queryClient] = useState(createQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
