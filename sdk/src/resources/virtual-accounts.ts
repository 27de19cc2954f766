import { PageIterator } from '../core/pagination.js';
import {
  APIResource,
  assertOk,
  type CallOptions,
  type IdempotentCallOptions,
  init,
  PREFIX,
  post,
  unwrap,
} from '../core/resource.js';
import type {
  CloseInput,
  CreateVirtualAccountInput,
  Credit,
  DeactivateInput,
  SimulateCreditInput,
  Statement,
  StatementPeriod,
  Transaction,
  TransactionListOptions,
  VirtualAccount,
  VirtualAccountListOptions,
  VirtualAccountPage,
} from '../types.js';

/** Virtual accounts (NUBAN) in the credential's environment. */
export class VirtualAccounts extends APIResource {
  /**
   * Issues an account to an end user. Sent with an Idempotency-Key (yours or a fresh UUID), so the
   * SDK's retries never open two. A second account for the same e-mail: ApiError 409
   * VIRTUAL_ACCOUNT_EXISTS with the existing account in `data`.
   */
  create(body: CreateVirtualAccountInput, options?: IdempotentCallOptions): Promise<VirtualAccount> {
    return unwrap(this.api.POST(`${PREFIX}/services/virtual-account/create`, { body, ...post(options) }));
  }

  get(accountNumber: string, options?: CallOptions): Promise<VirtualAccount> {
    return unwrap(
      this.api.GET(`${PREFIX}/services/virtual-account/{account_number}`, {
        params: { path: { account_number: accountNumber } },
        ...init(options),
      }),
    );
  }

  /** Every account matching `filters` (status, email, created_from, created_to, q, order; limit = page size). */
  list(filters: VirtualAccountListOptions = {}, options?: CallOptions): PageIterator<VirtualAccount> {
    return new PageIterator((cursor) => this.listPage({ ...filters, cursor }, options));
  }

  listPage(
    query: VirtualAccountListOptions & { cursor?: string | undefined } = {},
    options?: CallOptions,
  ): Promise<VirtualAccountPage> {
    return unwrap(
      this.api.GET(`${PREFIX}/services/virtual-account`, { params: { query }, ...init(options) }),
    );
  }

  /** Every credit of the account, newest first. */
  transactions(
    accountNumber: string,
    filters: TransactionListOptions = {},
    options?: CallOptions,
  ): PageIterator<Transaction> {
    return new PageIterator((cursor) =>
      unwrap(
        this.api.GET(`${PREFIX}/services/virtual-account/{account_number}/transactions`, {
          params: { path: { account_number: accountNumber }, query: { ...filters, cursor } },
          ...init(options),
        }),
      ),
    );
  }

  /**
   * Sandbox only: an inbound transfer as the sponsor bank would report it (`amount` in naira, ≤ 2
   * decimals), through the same code as a live one: give `originator` and `session_id` to choose the
   * sender and the NIBSS session id. A session id already credited is not credited again: the answer
   * is the earlier credit.
   */
  simulateCredit(
    accountNumber: string,
    body: SimulateCreditInput,
    options?: IdempotentCallOptions,
  ): Promise<Credit> {
    return unwrap(
      this.api.POST(`${PREFIX}/services/virtual-account/{account_number}/simulate-credit`, {
        params: { path: { account_number: accountNumber } },
        body,
        ...post(options),
      }),
    );
  }

  /** active → inactive: credits are refused until it is reactivated. */
  deactivate(
    accountNumber: string,
    body: DeactivateInput,
    options?: IdempotentCallOptions,
  ): Promise<VirtualAccount> {
    return unwrap(
      this.api.POST(`${PREFIX}/services/virtual-account/{account_number}/deactivate`, {
        params: { path: { account_number: accountNumber } },
        body,
        ...post(options),
      }),
    );
  }

  reactivate(accountNumber: string, options?: IdempotentCallOptions): Promise<VirtualAccount> {
    return unwrap(
      this.api.POST(`${PREFIX}/services/virtual-account/{account_number}/reactivate`, {
        params: { path: { account_number: accountNumber } },
        ...post(options),
      }),
    );
  }

  /** → closed, for good: the number is never issued again. */
  close(accountNumber: string, body: CloseInput, options?: IdempotentCallOptions): Promise<VirtualAccount> {
    return unwrap(
      this.api.POST(`${PREFIX}/services/virtual-account/{account_number}/close`, {
        params: { path: { account_number: accountNumber } },
        body,
        ...post(options),
      }),
    );
  }

  /** Statement of whole UTC days `from`–`to` (YYYY-MM-DD, ≤ 366 days): balances and transactions. */
  statement(accountNumber: string, period: StatementPeriod, options?: CallOptions): Promise<Statement> {
    return unwrap(
      this.api.GET(`${PREFIX}/services/virtual-account/{account_number}/statement`, {
        params: { path: { account_number: accountNumber }, query: period },
        ...init(options),
      }),
    );
  }

  /** The same statement's transactions as CSV text (header row; naira with 2 decimals). */
  async statementCsv(accountNumber: string, period: StatementPeriod, options?: CallOptions): Promise<string> {
    const result = await this.api.GET(`${PREFIX}/services/virtual-account/{account_number}/statement`, {
      params: { path: { account_number: accountNumber }, query: period },
      parseAs: 'text',
      ...init(options),
      headers: { ...options?.headers, accept: 'text/csv' },
    });
    assertOk(result);
    return result.data ?? '';
  }
}
