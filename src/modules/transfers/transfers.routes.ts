import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { credentialOf, requestMeta, withCheckedCredential } from '../../platform/http/auth.js';
import { csvDocument, wantsCsv } from '../../platform/http/csv.js';
import { operation } from '../../platform/http/route.js';
import { success } from '../../platform/http/schemas.js';
import { answerIdempotently } from '../../platform/idempotency/idempotency.js';
import { koboToDecimal } from '../virtual-accounts/money.js';
import {
  AdminTransferListQuery,
  AdminTransferListResponse,
  BankListResponse,
  CreateTransferBody,
  DailyReportQuery,
  DailyReportResponse,
  NameEnquiryBody,
  NameEnquiryResponse,
  Transfer,
  TransferAcceptedResponse,
  TransferListQuery,
  TransferListResponse,
  TransferParams,
  TransferResponse,
} from './transfers.schemas.js';
import type { TransfersService } from './transfers.service.js';
import type { TransferView } from './transfers.views.js';

const tags = ['Transfers'];

const TRANSFER_CSV_COLUMNS = [
  'id',
  'reference',
  'status',
  'source_account_number',
  'amount',
  'fee',
  'currency',
  'beneficiary_account_name',
  'beneficiary_account_number',
  'beneficiary_bank_code',
  'beneficiary_bank_name',
  'narration',
  'session_id',
  'failure_reason',
  'environment',
  'created_at',
  'updated_at',
] as const;

const transferCsvCells = (transfer: TransferView) => [
  transfer.id,
  transfer.reference,
  transfer.status,
  transfer.source_account_number,
  koboToDecimal(transfer.amount_kobo),
  koboToDecimal(transfer.fee_kobo),
  transfer.currency,
  transfer.beneficiary.account_name,
  transfer.beneficiary.account_number,
  transfer.beneficiary.bank_code,
  transfer.beneficiary.bank_name,
  transfer.narration,
  transfer.session_id,
  transfer.failure_reason,
  transfer.environment,
  transfer.created_at,
  transfer.updated_at,
];

/** Money out, for partners (docs/partner-guide.md, "Sending money"). */
export const transfersRoutes: FastifyPluginAsyncTypebox<{ transfers: TransfersService }> = async (
  app,
  { transfers },
) => {
  app.get(
    '/services/banks',
    operation({
      operationId: 'listBanks',
      summary: 'The banks a transfer can reach',
      description:
        "NIP institution codes (6 digits) with the banks' names, sorted by name: commercial, merchant, " +
        "non-interest, mobile-money and microfinance banks, and this institution (its environment's code).",
      tags,
      auth: 'partner',
      access: 'read',
      response: { 200: BankListResponse },
    }),
    async (request) => success('Banks.', transfers.banks(credentialOf(request).environment)),
  );

  app.post(
    '/services/transfers/name-enquiry',
    operation({
      operationId: 'nameEnquiry',
      summary: 'Look up the name on a bank account before sending to it',
      description:
        'Asks the beneficiary bank (through NIBSS) whose account it is. Show account_name to the person ' +
        'before they send, and pass name_enquiry_ref with the transfer within 30 minutes. Answers are reused ' +
        "for 30 minutes per bank and account. At this institution's own code the answer is the virtual " +
        'account (active or inactive) of this environment. In the sandbox a number ending 00 is unknown and 91 ' +
        'finds the bank unavailable.',
      tags,
      auth: 'partner',
      access: 'money',
      body: NameEnquiryBody,
      idempotent: true,
      response: { 200: NameEnquiryResponse },
      errors: ['BENEFICIARY_NOT_FOUND', 'BANK_UNAVAILABLE'],
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        200,
        () => transfers.nameEnquiry(credentialOf(request), request.body),
        (data) => success('Beneficiary found.', data),
      ),
  );

  app.post(
    '/services/transfers',
    operation({
      operationId: 'createTransfer',
      summary: 'Send money from a virtual account to any Nigerian bank account',
      description:
        '202: accepted as `pending`, the amount plus the NIP fee held at once (available_balance falls); the ' +
        'outcome arrives by webhook (transfer.successful, transfer.failed, later transfer.reversed) and on ' +
        "GET /services/transfers/{id}. To this institution's own bank code it is a free book transfer, " +
        '`successful` at once. The server enquires the name itself unless name_enquiry_ref is given; its ' +
        'failures are those of name-enquiry and nothing is held. `reference` is yours and unique per ' +
        'environment (409 DUPLICATE_REFERENCE with the existing transfer). Send an Idempotency-Key to retry safely.',
      tags,
      auth: 'partner',
      access: 'money',
      body: CreateTransferBody,
      idempotent: true,
      keyCheckedByWrite: true,
      response: { 202: TransferAcceptedResponse },
      errors: [
        'NOT_FOUND',
        'INSUFFICIENT_FUNDS',
        'DUPLICATE_REFERENCE',
        'ACCOUNT_INACTIVE',
        'ACCOUNT_CLOSED',
        'BENEFICIARY_NOT_FOUND',
        'BANK_UNAVAILABLE',
      ],
      errorData: { DUPLICATE_REFERENCE: Transfer },
    }),
    async (request, reply) =>
      answerIdempotently(
        request,
        reply,
        202,
        () =>
          withCheckedCredential(request, (credential) =>
            transfers.create(credential, request.body, requestMeta(request)),
          ),
        (data) => success('Transfer accepted.', data),
      ),
  );

  app.get(
    '/services/transfers',
    operation({
      operationId: 'listTransfers',
      summary: 'List transfers of this environment, newest first',
      description:
        'Filters combine: status, source_account_number, reference, created_from and created_to (a date alone ' +
        'means that whole UTC day). Each transfer carries its status history. ' +
        'With `Accept: text/csv` the answer is every matching transfer, newest first (all pages; limit and cursor ' +
        'are ignored), as CSV, streamed: a header row `' +
        TRANSFER_CSV_COLUMNS.join(',') +
        '` (no status history), every cell in double quotes (RFC 4180), amount and fee in naira with 2 decimals, ' +
        'an empty cell for null, and a cell starting with =, +, -, @, tab or carriage return (or holding one right ' +
        'after a comma, semicolon or tab) prefixed with an apostrophe.',
      tags,
      auth: 'partner',
      access: 'read',
      querystring: TransferListQuery,
      response: { 200: TransferListResponse },
    }),
    async (request, reply) => {
      if (wantsCsv(request.headers.accept)) {
        const pages = transfers.exportPages(credentialOf(request), request.query);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="transfers.csv"')
          .send(Readable.from(csvDocument(TRANSFER_CSV_COLUMNS, pages, transferCsvCells)));
      }
      return success('Transfers.', await transfers.list(credentialOf(request), request.query));
    },
  );

  app.get(
    '/services/transfers/:id',
    operation({
      operationId: 'getTransfer',
      summary: 'Read a transfer with its status history',
      description: "A transfer of this credential's partner and environment; any other is 404.",
      tags,
      auth: 'partner',
      access: 'read',
      params: TransferParams,
      response: { 200: TransferResponse },
    }),
    async (request) => success('Transfer.', await transfers.get(credentialOf(request), request.params.id)),
  );
};

/** Money out for operators: every partner's transfers and the daily reconciliation report. */
export const transfersAdminRoutes: FastifyPluginAsyncTypebox<{ transfers: TransfersService }> = async (
  app,
  { transfers },
) => {
  app.get(
    '/admin/transfers',
    operation({
      operationId: 'listAllTransfers',
      summary: "Every partner's transfers, newest first",
      description:
        'Filters: status, company_id, environment, and stuck=true for transfers still pending or processing ' +
        '10 minutes after they were accepted (the bank owes an answer; after 24 hours of status queries the ' +
        'server stops asking and an operator settles it with the bank).',
      tags: ['Back office'],
      auth: 'admin',
      querystring: AdminTransferListQuery,
      response: { 200: AdminTransferListResponse },
    }),
    async (request) => success('Transfers.', await transfers.listAll(request.query)),
  );

  app.get(
    '/admin/reports/daily',
    operation({
      operationId: 'dailyReport',
      summary: "A UTC day's money, for reconciliation with the bank",
      description:
        "That day's inbound credits, the transfers created that day by their status now, the fees debited " +
        "that day and the sum of every account's balance at the day's end, for one environment (default live).",
      tags: ['Back office'],
      auth: 'admin',
      querystring: DailyReportQuery,
      response: { 200: DailyReportResponse },
    }),
    async (request) => success('Daily report.', await transfers.dailyReport(request.query)),
  );
};
