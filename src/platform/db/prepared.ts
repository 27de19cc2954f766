import { type Compilable, CompiledQuery, type Kysely } from 'kysely';
import { queryDirectly } from './database.js';
import type { Database } from './schema.js';

const SENTINEL = '\u0000prepared-argument-';

/**
 * A query built and compiled once, then run with new arguments: the hot paths (authentication,
 * the profile read) skip Kysely's builder and compiler on every request. The query is compiled
 * with a unique sentinel per argument to find where each argument lands among the parameters;
 * every other parameter is a constant of the query and is kept. Arguments must be used as they
 * are (compared, not transformed), which `prepare` checks.
 */
export function prepare<Args extends readonly unknown[], Row>(
  build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>,
  arity: Args['length'],
): (db: Kysely<Database>, ...args: Args) => Promise<Row[]> {
  // Compiled once per dialect (SQL text and placeholders differ); tests run both in one process.
  const byDialect = new Map<
    unknown,
    { sql: string; parameters: readonly unknown[]; slots: Array<number | undefined> }
  >();
  return async (db, ...args) => {
    const dialect = db.getExecutor().adapter.constructor;
    let compiled = byDialect.get(dialect);
    if (!compiled) {
      const sentinels = Array.from({ length: arity }, (_, index) => `${SENTINEL}${index}`) as unknown as Args;
      const query = build(db, ...sentinels).compile();
      const slots = query.parameters.map((parameter) => {
        const index =
          typeof parameter === 'string' && parameter.startsWith(SENTINEL)
            ? Number(parameter.slice(SENTINEL.length))
            : undefined;
        return index;
      });
      for (let index = 0; index < arity; index++) {
        if (!slots.includes(index))
          throw new Error(`prepared query does not use argument ${index} as a parameter`);
      }
      compiled = { sql: query.sql, parameters: query.parameters, slots };
      byDialect.set(dialect, compiled);
    }
    const { sql, parameters, slots } = compiled;
    const values = parameters.map((parameter, position) => {
      const slot = slots[position];
      return slot === undefined ? parameter : args[slot];
    });
    return (
      (queryDirectly(db, sql, values) as Row[] | Promise<Row[]> | undefined) ??
      (await db.executeQuery<Row>(CompiledQuery.raw(sql, values))).rows
    );
  };
}
