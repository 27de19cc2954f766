import { loadConfig, readDotEnv } from './config.js';
import { ledgerMismatches } from './modules/virtual-accounts/ledger.repository.js';
import { openDatabase } from './platform/db/database.js';

/**
 * `npm run ledger:verify`: proves that every account's balance is the sum of its entries (credits
 * less debits) and that every entry's balance_after chains from the one before it. Exit 0 when the
 * ledger adds up; 1 with the accounts that do not (or when the check cannot run).
 */
readDotEnv();
const config = loadConfig(process.env);
const database = openDatabase(config.DATABASE_URL);
try {
  const mismatches = await ledgerMismatches(database.db);
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
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  await database.close();
}
