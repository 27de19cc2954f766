import { parseArgs } from 'node:util';
import { loadConfig, publicUrlOf, readDotEnv } from './config.js';
import { createOperatorsService } from './modules/operators/operators.service.js';
import { createAuditedWrite } from './platform/audit/audited-write.js';
import { OPERATOR_ROLES, type OperatorRole } from './platform/auth/credentials.js';
import { systemClock } from './platform/clock.js';
import { createKeyRing, loadOrCreateDevKey } from './platform/crypto/keys.js';
import { openDatabase } from './platform/db/database.js';
import { migrateToLatest } from './platform/db/migrator.js';
import { AppError } from './platform/errors/errors.js';
import { createEventSerializer } from './platform/events/catalog.js';

const USAGE = 'usage: npm run operator -- invite --email <e-mail> --role <reviewer|admin>';

/**
 * `npm run operator -- invite --email <e> --role admin`: invites an operator from the command line
 * (docs/operator-guide.md, "Who may call it": how the first admin comes to be) and prints the one-time
 * set-up link. Exits non-zero with a message on bad arguments or a refused invitation.
 */
async function main(): Promise<number> {
  let parsed: { positionals: string[]; values: { email?: string | undefined; role?: string | undefined } };
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { email: { type: 'string' }, role: { type: 'string' } },
    });
  } catch {
    // An unknown option or one without its value is a bad argument like any other.
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const { positionals, values } = parsed;
  const email = values.email?.trim().toLowerCase();
  const role = values.role as OperatorRole | undefined;
  if (
    positionals[0] !== 'invite' ||
    !email ||
    !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email) ||
    !role ||
    !OPERATOR_ROLES.includes(role)
  ) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  readDotEnv();
  const config = loadConfig(process.env);
  const database = openDatabase(config.DATABASE_URL);
  try {
    await migrateToLatest(database.db, database.schema);
    const operators = createOperatorsService({
      db: database.db,
      write: createAuditedWrite(database.db, systemClock, createEventSerializer({})),
      clock: systemClock,
      keys: createKeyRing(config.DATA_ENCRYPTION_KEY ?? loadOrCreateDevKey(config.DATA_DIR)),
      publicUrl: publicUrlOf(config),
    });
    const invitation = await operators.invite(null, { email, role }, null);
    process.stdout.write(
      [
        `Invitation for ${invitation.email} (${invitation.role}), valid until ${invitation.expires_at}.`,
        'Open this link once to set a password and an authenticator app (it is not shown again):',
        invitation.url,
        '',
      ].join('\n'),
    );
    return 0;
  } catch (error) {
    const message =
      error instanceof AppError && error.errors
        ? Object.entries(error.errors)
            .map(([field, problems]) => `${field} ${problems.join(', ')}`)
            .join('; ')
        : error instanceof Error
          ? error.message
          : String(error);
    process.stderr.write(`${message}\n`);
    return 1;
  } finally {
    await database.close();
  }
}

process.exitCode = await main();
