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
