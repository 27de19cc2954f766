import { TransferWaitTimeoutError } from '../core/error.js';
import { PageIterator } from '../core/pagination.js';
import {
  APIResource,
  type CallOptions,
  type IdempotentCallOptions,
  init,
  PREFIX,
  post,
  unwrap,
} from '../core/resource.js';
import { sleep } from '../internal/retry.js';
import type {
  CreateTransferInput,
  NameEnquiry,
  NameEnquiryInput,
  Transfer,
  TransferListOptions,
  TransferPage,
  TransferStatus,
} from '../types.js';

/** Options of `transfers.waitForFinal`. */
export interface WaitForFinalOptions extends CallOptions {
  /** How long to wait in all, in ms (default 120000); then TransferWaitTimeoutError. */
  timeoutMs?: number | undefined;
  /** Pause between two reads, in ms (default 2000). */
  intervalMs?: number | undefined;
}

/** The states a transfer leaves only for `reversed` (successful) or never (failed, reversed). */
const SETTLED: ReadonlySet<TransferStatus> = new Set(['successful', 'failed', 'reversed']);

/** Transfers (money out) from the credential's virtual accounts to any Nigerian bank account. */
export class Transfers extends APIResource {
  /**
   * Asks the beneficiary bank whose account it is: show `account_name` to the person before they
   * send, and pass `name_enquiry_ref` to `create` within 30 minutes. An unknown account: ApiError
   * 422 BENEFICIARY_NOT_FOUND; the bank unreachable: 503 BANK_UNAVAILABLE (with Retry-After, which
   * the SDK waits for up to `maxRetryAfterMs` and `maxRetries` times before it throws).
   */
  nameEnquiry(body: NameEnquiryInput, options?: IdempotentCallOptions): Promise<NameEnquiry> {
    return unwrap(this.api.POST(`${PREFIX}/services/transfers/name-enquiry`, { body, ...post(options) }));
  }

  /**
   * Sends money: resolves to the transfer as accepted (`pending`, amount and fee held; a book transfer
   * to this institution is `successful` at once); the outcome comes by webhook (`transfer.successful`,
   * `transfer.failed`, later `transfer.reversed`) or `get`/`waitForFinal`. Sent with an
   * Idempotency-Key (yours or a fresh UUID), so the SDK's retries never send twice; `reference` is
   * yours and unique: reusing it is ApiError 409 DUPLICATE_REFERENCE with the existing transfer in
   * `data`. A transfer that is `processing` is waited for, never resent under a new reference.
   */
  create(body: CreateTransferInput, options?: IdempotentCallOptions): Promise<Transfer> {
    return unwrap(this.api.POST(`${PREFIX}/services/transfers`, { body, ...post(options) }));
  }

  get(transferId: string, options?: CallOptions): Promise<Transfer> {
    return unwrap(
      this.api.GET(`${PREFIX}/services/transfers/{id}`, {
        params: { path: { id: transferId } },
        ...init(options),
      }),
    );
  }

  /**
   * Every transfer matching `filters` (status, source_account_number, reference, created_from,
   * created_to; limit = page size), newest first.
   */
  list(filters: TransferListOptions = {}, options?: CallOptions): PageIterator<Transfer> {
    return new PageIterator((cursor) => this.listPage({ ...filters, cursor }, options));
  }

  listPage(
    query: TransferListOptions & { cursor?: string | undefined } = {},
    options?: CallOptions,
  ): Promise<TransferPage> {
    return unwrap(this.api.GET(`${PREFIX}/services/transfers`, { params: { query }, ...init(options) }));
  }

  /**
   * Reads the transfer every `intervalMs` until the bank has settled it (`successful`, `failed`, or
   * already `reversed`) and resolves to it. A successful transfer may still be reversed later: the
   * `transfer.reversed` webhook tells. After `timeoutMs` it throws TransferWaitTimeoutError with the
   * last state read: the transfer is still on its way, not failed. Webhooks are the better way to
   * learn outcomes in a server; this suits scripts, tests and a request that can afford to wait.
   */
  async waitForFinal(transferId: string, options: WaitForFinalOptions = {}): Promise<Transfer> {
    const { timeoutMs = 120_000, intervalMs = 2000, ...callOptions } = options;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const transfer = await this.get(transferId, callOptions);
      if (SETTLED.has(transfer.status)) return transfer;
      const left = deadline - Date.now();
      if (left <= 0) throw new TransferWaitTimeoutError(transfer, timeoutMs);
      await sleep(Math.min(intervalMs, left), callOptions.signal);
    }
  }
}
