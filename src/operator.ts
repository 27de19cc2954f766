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
    if (!config.PUBLIC_URL) await warnUnlessAnswering(publicUrlOf(config));
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

/**
 * Without PUBLIC_URL the link's origin is http://HOST:PORT as this command sees them, which is not
 * the server's when it was started with another PORT: say so rather than leave a dead link.
 */
async function warnUnlessAnswering(origin: string): Promise<void> {
  const answered = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(2000) }).then(
    (response) => response.ok,
    () => false,
  );
  if (answered) return;
  process.stderr.write(
    `No server answers at ${origin}, the link's address (PUBLIC_URL, else http://HOST:PORT). ` +
      'Give this command the PORT and HOST the server was started with (PORT=4000 npm run operator -- ' +
      "invite …), or PUBLIC_URL, or put them in .env; or open the link on the server's address.\n",
  );
}

process.exitCode = await main();
