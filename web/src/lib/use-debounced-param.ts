import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';

/**
 * A text kept in the address as `?name=` (so reload, back and forward show it), written there once
 * typing pauses for `delayMs`, replacing the history entry. The field shows what is typed at once;
 * when the address changes by itself (back, forward, a link), the field follows it.
 */
export function useDebouncedParam(name: string, delayMs = 300): [string, (value: string) => void] {
  const [searchParams, setSearchParams] = useSearchParams();
  const inAddress = searchParams.get(name) ?? '';
  const [typed, setTyped] = useState(inAddress);
  // What this hook last wrote: the address reaching it is not news to show.
  const written = useRef(inAddress);
  const setParams = useRef(setSearchParams);
  setParams.current = setSearchParams;

  useEffect(() => {
    if (inAddress === written.current) return;
    written.current = inAddress;
    setTyped(inAddress);
  }, [inAddress]);

  useEffect(() => {
    const value = typed.trim();
    if (value === written.current) return;
    const timer = setTimeout(() => {
      written.current = value;
      setParams.current(
        (params) => {
          const next = new URLSearchParams(params);
          if (value === '') next.delete(name);
          else next.set(name, value);
          return next;
        },
        { replace: true },
      );
    }, delayMs);
    return () => clearTimeout(timer);
  }, [typed, name, delayMs]);

  return [typed, setTyped];
}
