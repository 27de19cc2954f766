import fc from 'fast-check';

/**
 * Values that need exact control over their JSON text, or that are too big to print in a
 * counterexample, are markers expanded only when the request is serialized.
 */

/** A JSON token written as is: `1e400`, `-0`, `123456789012345678901234567890`. */
export class RawJson {
  constructor(readonly text: string) {}
  [fc.toStringMethod](): string {
    return `raw(${this.text})`;
  }
}

/** `char` repeated `count` times. */
export class BigString {
  constructor(
    readonly char: string,
    readonly count: number,
  ) {}
  get value(): string {
    return this.char.repeat(this.count);
  }
  [fc.toStringMethod](): string {
    return `big(${JSON.stringify(this.char)} x ${this.count})`;
  }
}

/** `depth` levels of nested arrays or objects around a 1. */
export class DeepNest {
  constructor(
    readonly depth: number,
    readonly shape: 'array' | 'object',
  ) {}
  get text(): string {
    return this.shape === 'array'
      ? `${'['.repeat(this.depth)}1${']'.repeat(this.depth)}`
      : `${'{"a":'.repeat(this.depth)}1${'}'.repeat(this.depth)}`;
  }
  [fc.toStringMethod](): string {
    return `deep(${this.shape} x ${this.depth})`;
  }
}

export type FileContent = 'png' | 'pdf' | 'jpeg' | 'random' | 'empty' | 'text' | 'oversized' | 'svg';

/** A file part of a multipart body, described rather than held. */
export class FilePart {
  constructor(
    readonly content: FileContent,
    readonly filename: string,
    readonly contentType: string,
    readonly randomBytes: readonly number[] = [],
  ) {}
  [fc.toStringMethod](): string {
    return `file(${this.content}, ${JSON.stringify(this.filename)}, ${this.contentType}${
      this.content === 'random' ? `, ${this.randomBytes.length} bytes` : ''
    })`;
  }
}

/** A text part sent with a filename, i.e. as a file, where the schema wants a text field. */
export class TextAsFile {
  constructor(readonly text: string) {}
  [fc.toStringMethod](): string {
    return `textAsFile(${JSON.stringify(this.text)})`;
  }
}

/** Several parts with one name: multipart's way to send an array. */
export class Repeated {
  constructor(readonly values: readonly string[]) {}
  [fc.toStringMethod](): string {
    return `repeated(${this.values.map((value) => JSON.stringify(value)).join(', ')})`;
  }
}

/**
 * A body value taken from a pool when the request is sent (pools change during a run): the
 * pooled value itself, or with `otp` the latest verification code e-mailed to that address.
 */
export class PoolValue {
  constructor(
    readonly pool: string,
    readonly index: number,
    readonly transform: 'value' | 'otp' = 'value',
  ) {}
  [fc.toStringMethod](): string {
    return `pool(${this.pool}[${this.index}]${this.transform === 'otp' ? ', otp' : ''})`;
  }
}

/** Serializes a JSON value, expanding markers; own `__proto__` keys are written like any other. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof BigString) return JSON.stringify(value.value);
  if (value instanceof DeepNest) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A short, printable rendering of a value for failure messages. */
export function preview(value: unknown, max = 1500): string {
  const text = fc.stringify(value);
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}
