import type { Mutation } from './arbitraries.js';
import type { SchemeName } from './contract.js';
import type { BigString } from './values.js';
import type { PoolName } from './world.js';

/** The families of generated requests; each runs FUZZ_RUNS cases per operation. */
export type PropertyName =
  | 'valid'
  | 'invalid-body'
  | 'transport'
  | 'invalid-params'
  | 'invalid-query'
  | 'auth'
  | 'idempotency-key';

/** A pooled value (a query parameter with `omitIfEmpty` is left out while its pool is empty) or a literal. */
export type ValueChoice =
  | {
      pool: PoolName;
      index: number;
      omitIfEmpty?: boolean;
      /** Prefer the entry owned by whoever owns this other parameter's value (company of a document). */
      matchOwnerOf?: string;
    }
  | { literal: string };

export type AuthVariant = 'standard' | 'lowercase' | 'uppercase' | 'double-space' | 'trailing-space';

export type BadAuth =
  | 'missing'
  | 'empty'
  | 'scheme-only'
  | 'garbage'
  | 'basic'
  | 'no-scheme'
  | 'token-scheme'
  | 'tampered'
  | 'truncated'
  | 'fake-api-key'
  | 'too-long'
  | 'tab-separator'
  | 'two-credentials'
  | 'revoked-api-key'
  | 'logged-out-session'
  | `wrong-kind:${SchemeName}`;

export type AuthChoice =
  | { kind: 'none' }
  | { kind: 'credential'; scheme: SchemeName; variant: AuthVariant }
  | { kind: 'bad'; bad: BadAuth; garbage: string }
  /** Public operations: any Authorization header must be ignored. */
  | { kind: 'ignored'; value: string };

export type BodyChoice =
  | { kind: 'json'; value: unknown }
  | { kind: 'raw'; contentType: string | null; text: string | BigString | Uint8Array }
  | { kind: 'multipart'; parts: Array<[string, unknown]> }
  /** Multipart bytes written by hand (malformed bodies). */
  | { kind: 'raw-multipart'; boundary: string | null; text: string };

export type Expectation =
  | { kind: 'any' }
  /** One of these statuses (e.g. a correct login: 200, or 429 while the e-mail is locked out). */
  | { kind: 'one-of'; why: string; statuses: number[] }
  | {
      kind: 'reject';
      why: string;
      /** Exact statuses the published rules ask for; any 4xx when absent. */
      statuses?: number[];
      /** The field a 422 VALIDATION_FAILED must name. */
      field?: string;
    };

export interface RequestPlan {
  property: PropertyName;
  params: Record<string, ValueChoice>;
  query: Array<[string, ValueChoice]>;
  auth: AuthChoice;
  body?: BodyChoice;
  /** Content-Type override for JSON bodies (valid variants). */
  contentType?: string;
  idempotencyKey?: ValueChoice;
  expect: Expectation;
  mutation?: Mutation;
  /** Unknown fields added to the body (checked for mass assignment). */
  extras?: Array<[string, unknown]>;
}
