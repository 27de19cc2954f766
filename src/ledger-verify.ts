import { loadConfig, readDotEnv } from './config.js';
import { holdMismatches } from './modules/transfers/transfers.repository.js';
import { ledgerMismatches } from './modules/virtual-accounts/ledger.repository.js';
import { openDatabase } from './platform/db/database.js';

/**
 * `npm run ledger:verify`: proves that every account's balance is the sum of its entries (credits
 * less debits), that every entry's balance_after chains from the one before it, and that what each
 * account holds is exactly the amount and fee of its transfers still pending or processing (no hold
 * outlives its transfer). Exit 0 when all of it adds up; 1 with the accounts that do not (or when
 * the check cannot run).
 */
readDotEnv();
const config = loadConfig(process.env);
const database = openDatabase(config.DATABASE_URL);
try {
  const [mismatches, holds] = await Promise.all([ledgerMismatches(database.db), holdMismatches(database.db)]);
  if (mismatches.length === 0) {
    process.stdout.write('ledger verified: every balance is the sum of its entries\n');
  } else {
    process.stdout.write(`ledger mismatch: ${mismatches.length} account(s)\n`);
    for (const mismatch of mismatches) {
      process.stdout.write(
        `${mismatch.account_number} (${mismatch.account_id}): balance ${mismatch.balance_kobo} kobo, entries ${mismatch.entries_kobo} kobo, ${mismatch.broken_entries} entr${mismatch.broken_entries === 1 ? 'y' : 'ies'} out of chain\n`,
      );
    }
    process.exitCode = 1;
  }
  if (holds.length === 0) {
    process.stdout.write('holds verified: every hold is the amount and fee of an open transfer\n');
  } else {
    process.stdout.write(`hold mismatch: ${holds.length} account(s)\n`);
    for (const hold of holds) {
      process.stdout.write(
        `${hold.account_number} (${hold.account_id}): holds ${hold.held_kobo} kobo, open transfers ${hold.open_transfers_kobo} kobo\n`,
      );
    }
    process.exitCode = 1;
  }
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await database.close();
}
