/** True when a write failed on a UNIQUE or PRIMARY KEY constraint (SQLite or PostgreSQL). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** True when a write failed on the NOT NULL constraint of a column named `column` (SQLite or PostgreSQL). */
export function isNotNullViolation(error: unknown, column: string): boolean {
  const {
    code,
    column: failed,
    message,
  } = (error ?? {}) as { code?: unknown; column?: unknown; message?: unknown };
  if (code === '23502') return failed === column;
  return (
    code === 'SQLITE_CONSTRAINT_NOTNULL' && typeof message === 'string' && message.endsWith(`.${column}`)
  );
}
