import { useState } from 'react';

/**
 * Where a cursor-paginated list is (docs/partner-guide.md, "Pagination"): the cursors of the pages
 * seen so far, so "Previous" goes back without the server knowing pages. Starts over when `resetKey`
 * (the filters) changes.
 */
export function useCursorPages(resetKey: string) {
  const [state, setState] = useState<{ key: string; cursors: Array<string | undefined> }>({
    key: resetKey,
    cursors: [undefined],
  });
  const cursors = state.key === resetKey ? state.cursors : [undefined];
  if (state.key !== resetKey) setState({ key: resetKey, cursors });
  return {
    cursor: cursors[cursors.length - 1],
    page: cursors.length,
    hasPrevious: cursors.length > 1,
    next: (cursor: string) => setState({ key: resetKey, cursors: [...cursors, cursor] }),
    previous: () => setState({ key: resetKey, cursors: cursors.slice(0, -1) }),
  };
}
