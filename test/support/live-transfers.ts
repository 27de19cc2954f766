import { randomInt } from 'node:crypto';

/** Money out (docs/partner-guide.md, "Sending money"): a fast worker for live tests. */

/** The connector's timeout and the transfer worker's pace in these tests. */
export const CONNECTOR_TIMEOUT_MS = 500;
export const REQUERY_MS = 200;

/** An app's env for live transfers to the (fake) connector at `bankUrl`, at test speed. */
export const fastTransferEnv = (bankUrl: string): Record<string, string> => ({
  BANK_CONNECTOR_URL: bankUrl,
  BANK_CONNECTOR_TIMEOUT_MS: String(CONNECTOR_TIMEOUT_MS),
  TRANSFER_REQUERY_MS: String(REQUERY_MS),
  TRANSFER_POLL_MS: '50',
});

/** A 10-digit account number at another bank, fresh each time (the fake bank scripts per account). */
export const beneficiaryNumber = () => String(randomInt(0, 10_000_000_000)).padStart(10, '0');
