import { createHash } from 'node:crypto';
import type { NameEnquiryAnswer, OutboundTransfer, TransferAnswer } from './rail.js';

/** The name the sandbox bank gives every account it knows. */
export const SANDBOX_BENEFICIARY_NAME = 'SANDBOX BENEFICIARY';

/** The last two digits of an account number: they choose what the sandbox bank does. */
const ending = (accountNumber: string) => accountNumber.slice(-2);

/**
 * The built-in sandbox bank (docs/partner-guide.md, "Sending money"): deterministic by the
 * beneficiary account number's last two digits. Name enquiry: `00` unknown account, `91` bank
 * unavailable, else SANDBOX BENEFICIARY. A transfer: `05` fails ("do not honor"), `97` times out
 * first and the status query then says successful, `21` succeeds and is reversed `requeryMs` later,
 * anything else succeeds. It keeps no state: every answer follows from the transfer and the time
 * it was sent, so a restart changes nothing. The session id is derived from the reference.
 */
export function createSandboxRail(options: { bankCode: string; requeryMs: number }) {
  function sessionIdOf(reference: string, sentAt: number): string {
    const time = new Date(sentAt)
      .toISOString()
      .replace(/[^0-9]/g, '')
      .slice(2, 14);
    const digits = BigInt(`0x${createHash('sha256').update(reference).digest('hex').slice(0, 16)}`)
      .toString()
      .padStart(12, '0')
      .slice(-12);
    return `${options.bankCode}${time}${digits}`;
  }

  return {
    // Answers at once.
    answerWithinMs: 0,

    async nameEnquiry(_bankCode: string, accountNumber: string): Promise<NameEnquiryAnswer> {
      if (ending(accountNumber) === '00') return { outcome: 'not_found', responseCode: '25' };
      if (ending(accountNumber) === '91') {
        return { outcome: 'unavailable', responseCode: '91', reason: 'the sandbox bank is unavailable (91)' };
      }
      return { outcome: 'found', accountName: SANDBOX_BENEFICIARY_NAME, bankRef: null };
    },

    async send(transfer: OutboundTransfer, sentAt: number): Promise<TransferAnswer> {
      switch (ending(transfer.accountNumber)) {
        case '05':
          return { outcome: 'failed', responseCode: '05', reason: 'do not honor (05)' };
        case '97':
          return {
            outcome: 'unknown',
            responseCode: null,
            reason: 'the sandbox bank did not answer in time',
          };
        case '91':
          return { outcome: 'unknown', responseCode: '91', reason: 'the sandbox bank is unavailable (91)' };
        default:
          return {
            outcome: 'successful',
            sessionId: sessionIdOf(transfer.reference, sentAt),
            responseCode: '00',
          };
      }
    },

    /** The status query; `succeededAt`: when the transfer was booked successful, if it was. */
    async query(
      transfer: OutboundTransfer,
      times: { sentAt: number; succeededAt: number | null; now: number },
    ): Promise<TransferAnswer> {
      const sessionId = sessionIdOf(transfer.reference, times.sentAt);
      switch (ending(transfer.accountNumber)) {
        case '05':
          return { outcome: 'failed', responseCode: '05', reason: 'do not honor (05)' };
        case '21':
          if (times.succeededAt !== null && times.now >= times.succeededAt + options.requeryMs) {
            return {
              outcome: 'reversed',
              sessionId,
              responseCode: null,
              reason: 'returned by the beneficiary bank',
            };
          }
          return { outcome: 'successful', sessionId, responseCode: '00' };
        default:
          return { outcome: 'successful', sessionId, responseCode: '00' };
      }
    },

    /** After a success, when to ask again: only a `21` transfer, whose reversal comes later. */
    followUpMs(transfer: OutboundTransfer): number | null {
      return ending(transfer.accountNumber) === '21' ? options.requeryMs : null;
    },
  };
}
