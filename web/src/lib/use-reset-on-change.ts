import { useEffect, useRef } from 'react';

/**
 * Calls `reset` (a mutation's, say) when `state` changes after the first render: an error that
 * describes the state it was made on goes once that state is gone, instead of staying beside a
 * page that no longer matches it (issue 30: "Approve application failed" after the documents it
 * named were approved). `state` is compared by its JSON.
 */
export function useResetOnChange(reset: () => void, state: unknown): void {
  const key = JSON.stringify(state);
  const seen = useRef(key);
  useEffect(() => {
    if (seen.current === key) return;
    seen.current = key;
    reset();
  }, [key, reset]);
}
