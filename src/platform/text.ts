/**
 * Bidirectional embeddings, overrides and isolates: they reorder how the text around them is shown
 * ("Acme \u202Edetimil deviorppa" reads "Acme approved limited"). The implicit marks (LRM, RLM, ALM)
 * only settle the direction of neutral characters next to them and are allowed: RTL keyboards type them.
 */
export const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/;

/** A control character (C0, DEL, C1: tab and line breaks included). */
export const CONTROL = /\p{Cc}/u;

/** The same in free text, where a line break (LF, or CR right before LF) is text. */
export const CONTROL_BUT_LINE_BREAK = /(?!\n|\r\n)\p{Cc}/u;

/** A UTF-16 surrogate without its pair: not a character (JSON can carry one, `\uD800`). */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');
const FOREIGN_UNWANTED = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/gu;

/**
 * Text another system sent us (a bank's narration, a sender's name), made safe to keep and show
 * instead of refused: a credit must not fail over its narration. Control characters (line breaks
 * included) and bidirectional controls become spaces, runs of white space one space, lone surrogates
 * U+FFFD; the result is trimmed and cut to `maxChars` code points.
 */
export function sanitizeForeignText(text: string, maxChars: number): string {
  const clean = text
    .replace(LONE_SURROGATES, '\uFFFD')
    .replace(FOREIGN_UNWANTED, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
  return clean.length <= maxChars ? clean : Array.from(clean).slice(0, maxChars).join('').trim();
}
