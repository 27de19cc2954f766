import type { ReactNode } from 'react';
import './ui.css';

/**
 * The invisible characters that steer bidirectional text: the marks (ALM, LRM, RLM), the
 * embeddings and overrides (LRE, RLE, PDF, LRO, RLO) and the isolates (LRI, RLI, FSI, PDI).
 */
const CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

const NAMES: Record<string, string> = {
  '\u061C': 'Arabic letter mark',
  '\u200E': 'left-to-right mark',
  '\u200F': 'right-to-left mark',
  '\u202A': 'left-to-right embedding',
  '\u202B': 'right-to-left embedding',
  '\u202C': 'pop directional formatting',
  '\u202D': 'left-to-right override',
  '\u202E': 'right-to-left override',
  '\u2066': 'left-to-right isolate',
  '\u2067': 'right-to-left isolate',
  '\u2068': 'first strong isolate',
  '\u2069': 'pop directional isolate',
};

const codePoint = (control: string): string =>
  `U+${control.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * `value` with each bidirectional control written out as its code point ("Acme [U+202E]detimil"),
 * for places that take a plain string: a page title, an accessible name.
 */
export function visibleControls(value: string): string {
  return value.replace(CONTROLS, (control) => `[${codePoint(control)}]`);
}

/**
 * Text a partner or an end user wrote (a name, an address, a reason, a narration, an e-mail
 * address): in its own bidirectional isolate (<bdi>, direction from its first strong letter), so it
 * cannot reorder what stands beside it, and with its direction controls shown as marks instead of
 * obeyed, so it cannot reorder itself either ("Acme \u202Edetimil deviorppa" would read "Acme
 * approved limited"). Right-to-left writing needs no control and reads as written.
 */
export function UserText({ children, className }: { children: string; className?: string }) {
  const parts: ReactNode[] = [];
  let from = 0;
  for (const { index: at, 0: control } of children.matchAll(CONTROLS)) {
    if (at > from) parts.push(children.slice(from, at));
    parts.push(
      <span key={at} className="bidi-control" title={`Hidden ${NAMES[control]}, shown instead of applied`}>
        {codePoint(control)}
      </span>,
    );
    from = at + control.length;
  }
  if (from < children.length) parts.push(children.slice(from));
  return <bdi className={className}>{from === 0 ? children : parts}</bdi>;
}

/** UserText for a value that may be absent: null then, for the caller's own "Not given". */
export function userText(value: string | null | undefined) {
  return value === null || value === undefined || value === '' ? null : <UserText>{value}</UserText>;
}
