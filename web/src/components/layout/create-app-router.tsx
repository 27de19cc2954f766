import type { ReactElement } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router';
import { Loading } from '@/components/ui/loading';
import { basename } from '@/lib/basename';

/**
 * An app's router: its layout (the shell) around its pages, under the app's path. The pages are
 * meant to be lazy routes, each a chunk loaded when the page is first shown; while the first one
 * loads, the shell shows a Loading. An address no page matches gets the app's "Page not found".
 */
export function createAppRouter({
  layout,
  appName,
  pages,
}: {
  layout: ReactElement;
  appName: string;
  pages: RouteObject[];
}) {
  return createBrowserRouter(
    [
      {
        element: layout,
        children: [
          {
            hydrateFallbackElement: <Loading />,
            children: [
              ...pages,
              {
                path: '*',
                lazy: () =>
                  import('@/components/not-found-page').then((m) => ({
                    element: <m.NotFoundPage appName={appName} />,
                  })),
              },
            ],
          },
        ],
      },
    ],
    { basename },
  );
}
