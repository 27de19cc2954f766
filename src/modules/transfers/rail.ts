/**
 * A bank rail: how a transfer leaves this institution. Two implementations: the built-in sandbox
 * bank (sandbox, and development's live without a connector) and the sponsor bank's HTTP connector
 * (docs/operator-guide.md, "The bank connector"). A rail never throws for the bank's behaviour: every
 * timeout, dropped connection, 5xx or odd body is an answer (`unavailable` / `unknown`).
 */

/** What a name enquiry found. */
export type NameEnquiryAnswer =
  | {
      outcome: 'found';
      accountName: string /** The bank's own reference, sent back with the transfer. */;
      bankRef: string | null;
    }
  | { outcome: 'not_found'; responseCode: string }
  | { outcome: 'unavailable'; responseCode: string | null; reason: string };

/** A transfer as handed to the bank. */
export interface OutboundTransfer {
  /** Ours, unique across the institution: the bank deduplicates on it. */
  reference: string;
  amountKobo: number;
  sourceAccountNumber: string;
  sourceAccountName: string;
  bankCode: string;
  accountNumber: string;
  accountName: string;
  nameEnquiryRef: string | null;
  narration: string;
}

/**
 * The bank's word on a transfer. `unknown`: no answer, a 5xx, a pending code (09, 97) or bank
 * unavailable (91, 96) after it was accepted: ask again later. Only `failed` is definite.
 */
export type TransferAnswer =
  | { outcome: 'successful'; sessionId: string | null; responseCode: string }
  | { outcome: 'failed'; responseCode: string | null; reason: string }
  | { outcome: 'unknown'; responseCode: string | null; reason: string }
  /** The money came back after it had arrived (the sandbox bank's late reversal). */
  | { outcome: 'reversed'; sessionId: string | null; responseCode: string | null; reason: string };

export interface BankRail {
  nameEnquiry(bankCode: string, accountNumber: string): Promise<NameEnquiryAnswer>;
  /** Hands the transfer to the bank: called at most once per reference. */
  send(transfer: OutboundTransfer): Promise<TransferAnswer>;
  /** The transaction status query. */
  query(reference: string): Promise<TransferAnswer>;
}

/**
 * NIP response codes (docs/operator-guide.md): 00 done; 09 and 97 not known yet; 25 and 07 unknown
 * account; 91 and 96 bank unavailable; anything else a definite failure.
 */
export const NIP = {
  done: '00',
  pending: ['09', '97'],
  unknownAccount: ['25', '07'],
  unavailable: ['91', '96'],
} as const;

/** A transfer answer from a NIP response code (a transfer already accepted: unavailable is not known yet). */
export function transferAnswerOf(responseCode: string, sessionId: string | null): TransferAnswer {
  if (responseCode === NIP.done) return { outcome: 'successful', sessionId, responseCode };
  if (
    (NIP.pending as readonly string[]).includes(responseCode) ||
    (NIP.unavailable as readonly string[]).includes(responseCode)
  ) {
    return { outcome: 'unknown', responseCode, reason: `the bank answered ${responseCode}: not known yet` };
  }
  if ((NIP.unknownAccount as readonly string[]).includes(responseCode)) {
    return { outcome: 'failed', responseCode, reason: `beneficiary account not found (${responseCode})` };
  }
  return { outcome: 'failed', responseCode, reason: `the bank declined the transfer (${responseCode})` };
}

/** When a transfer was sent and booked: what the sandbox bank's answers follow from. */
export interface TransferTimes {
  sentAt: number;
  succeededAt: number | null;
  now: number;
}

/** A rail as the transfers module drives it: the sandbox bank, or a BankRail (the connector). */
export interface Rail {
  nameEnquiry(bankCode: string, accountNumber: string): Promise<NameEnquiryAnswer>;
  send(transfer: OutboundTransfer, sentAt: number): Promise<TransferAnswer>;
  query(transfer: OutboundTransfer, times: TransferTimes): Promise<TransferAnswer>;
  /** After a success, when to ask the bank again (the sandbox bank's late reversal); null: never. */
  followUpMs?(transfer: OutboundTransfer): number | null;
  /**
   * The longest a send may take before it counts as no answer: the first status query waits at least
   * this long (and a second), so it never races the send it asks about.
   */
  answerWithinMs: number;
}

/** A BankRail (the connector) as a Rail: it needs only the reference to query. */
export const railOf = (bank: BankRail, answerWithinMs: number): Rail => ({
  answerWithinMs,
  nameEnquiry: (bankCode, accountNumber) => bank.nameEnquiry(bankCode, accountNumber),
  send: (transfer) => bank.send(transfer),
  query: (transfer) => bank.query(transfer.reference),
});
