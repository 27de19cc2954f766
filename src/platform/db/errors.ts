/** True when a write failed on a UNIQUE or PRIMARY KEY constraint (SQLite or PostgreSQL). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** The name of the violated constraint or index, when the driver reports it (PostgreSQL does). */
export function violatedConstraint(error: unknown): string | undefined {
  const { constraint, message } = (error ?? {}) as { constraint?: string; message?: string };
  return constraint ?? message;
}
