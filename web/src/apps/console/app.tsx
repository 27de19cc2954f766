import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { createBrowserRouter, Outlet, RouterProvider } from 'react-router';
import { AppShell } from '@/components/layout/app-shell';
import { AriaRouter } from '@/components/layout/aria-router';
import { NotFoundPage } from '@/features/planned-pages/components/not-found-page';
import { PlannedPage } from '@/features/planned-pages/components/planned-page';
import { ServiceStatus } from '@/features/service-status/components/service-status';
import { basename } from '@/lib/basename';
import { createQueryClient } from '@/lib/query-client';
import { CONSOLE_PLANNED_PAGES } from './planned-pages';
import { SignInRoute } from './routes/sign-in';

const APP_NAME = 'Operator console';

function ConsoleLayout() {
  return (
    <AriaRouter>
      <AppShell
        appName={APP_NAME}
        headerNote="For the compliance team"
        footer={
          <>
            <p>Authorised operators only. Every action is recorded in the audit log.</p>
            <ServiceStatus />
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
      element: <ConsoleLayout />,
      children: [
        { index: true, element: <SignInRoute /> },
        ...CONSOLE_PLANNED_PAGES.map((page) => ({
          path: page.route,
          element: <PlannedPage page={page} appName={APP_NAME} />,
        })),
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
