import { useEffect, useRef } from 'react';

/**
 * Clears a mutation's error when `state` changes after it was shown: an error describes the
 * state it was made on, and goes once that state is gone instead of staying beside a page that no
 * longer matches it (issue 30: "Approve application failed" after the documents it named were
 * approved). Only an error is cleared: resetting a mutation that succeeded would drop the
 * callbacks its caller still waits for. `state` is compared by its JSON.
 */
export function useClearErrorOnChange(
  mutation: { isError: boolean; reset: () => void },
  state: unknown,
): void {
  const key = JSON.stringify(state);
  const seen = useRef(key);
  const { isError, reset } = mutation;
  useEffect(() => {
    if (seen.current === key) return;
    seen.current = key;
    if (isError) reset();
  }, [key, isError, reset]);
}
