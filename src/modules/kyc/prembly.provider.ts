import type { Logger } from 'pino';
import { type KycProvider, type KycResult, type KycSubject, RETRY_MESSAGE } from './kyc.provider.js';

export interface PremblyOptions {
  baseUrl: string;
  appId: string;
  apiKey: string;
  timeoutMs: number;
  log: Logger;
}

interface PremblyBvnResponse {
  status?: boolean;
  response_code?: string;
  detail?: string;
  data?: { firstName?: string; middleName?: string; lastName?: string; dateOfBirth?: string };
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** Prembly returns dates as "01-Jan-2000" (also "2-Aug-1904", "01-January-2000" or ISO); → YYYY-MM-DD. */
export function normalizeProviderDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  const iso = /^(\d{4})-(\d{2})-(\d{2})/.exec(trimmed);
  if (iso) return `${iso[1]}-${iso[2]}-${iso[3]}`;
  const named = /^(\d{1,2})[-/ ]([A-Za-z]{3,9})[-/ ](\d{4})$/.exec(trimmed);
  if (!named) return undefined;
  const month = MONTHS.indexOf(named[2]!.slice(0, 3).toLowerCase());
  if (month < 0) return undefined;
  return `${named[3]}-${String(month + 1).padStart(2, '0')}-${named[1]!.padStart(2, '0')}`;
}

/** Case, accents, spaces, hyphens and apostrophes do not make two names differ. */
export function normalizeName(value: string | undefined): string {
  return (value ?? '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/[^A-Z]/g, '');
}

/** The representative's name and date of birth against the BVN record the provider found. */
function compareWithRecord(record: NonNullable<PremblyBvnResponse['data']>, subject: KycSubject): KycResult {
  const lastMatches = normalizeName(record.lastName) === normalizeName(subject.lastName);
  const first = normalizeName(subject.firstName);
  const firstMatches =
    first !== '' && (first === normalizeName(record.firstName) || first === normalizeName(record.middleName));
  if (!lastMatches || !firstMatches) {
    return {
      outcome: 'failed',
      message: "The representative's name does not match the BVN record.",
      reason: 'name_mismatch',
    };
  }
  if (normalizeProviderDate(record.dateOfBirth) !== subject.dob) {
    return {
      outcome: 'failed',
      message: "The representative's date of birth does not match the BVN record.",
      reason: 'dob_mismatch',
    };
  }
  return {
    outcome: 'passed',
    message: 'BVN verified: name and date of birth match.',
    reason: 'verified',
  };
}

/**
 * Adapter for Prembly (IdentityPass) BVN lookup: POST {base}/verification/bvn with headers app-id and
 * x-api-key and body {number}. It answers HTTP 200 with a response_code: 00 found, 01 not found,
 * 02 unavailable, 03 insufficient balance, 07 blocked. The returned name and date of birth are
 * compared with the representative's here; the record itself is never stored or returned.
 */
export function premblyKycProvider(options: PremblyOptions): KycProvider {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/verification/bvn`;
  const unavailable = (reason: string): KycResult => ({ outcome: 'error', message: RETRY_MESSAGE, reason });

  /** The provider's answer to a lookup, or the error result when it gave none (timeout, network, HTTP error). */
  async function lookUp(bvn: string): Promise<{ body: PremblyBvnResponse } | { failed: KycResult }> {
    let response: Response;
    let body: PremblyBvnResponse;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: {
          'app-id': options.appId,
          'x-api-key': options.apiKey,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({ number: bvn }),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      body = (await response.json()) as PremblyBvnResponse;
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      options.log.warn(
        { err: error, provider: 'prembly' },
        timedOut ? 'KYC provider timed out' : 'KYC provider unreachable',
      );
      return { failed: unavailable(timedOut ? 'timeout' : 'unreachable') };
    }
    if (!response.ok) {
      // 401/403 mean our credentials are wrong: the operator must act, the partner can only retry.
      const level = response.status === 401 || response.status === 403 ? 'error' : 'warn';
      options.log[level](
        { provider: 'prembly', status: response.status },
        'KYC provider answered with an HTTP error',
      );
      return { failed: unavailable(`http_${response.status}`) };
    }
    return { body };
  }

  /** The result of a response_code other than 00 (found). */
  function resultOfCode(code: string | undefined): KycResult {
    switch (code) {
      case '01':
        return {
          outcome: 'failed',
          message: 'BVN not found: check the number and try again.',
          reason: 'not_found',
        };
      case '07':
        return {
          outcome: 'failed',
          message: 'This BVN cannot be used for verification.',
          reason: 'blocked',
        };
      case '03':
        options.log.error({ provider: 'prembly' }, 'KYC provider wallet balance is insufficient');
        return unavailable('insufficient_balance');
      default:
        options.log.warn({ provider: 'prembly', response_code: code }, 'KYC provider could not verify');
        return unavailable(`code_${code ?? 'missing'}`);
    }
  }

  return {
    name: 'prembly',
    async verifyBvn(subject) {
      const answer = await lookUp(subject.bvn);
      if ('failed' in answer) return answer.failed;
      if (answer.body.response_code !== '00') return resultOfCode(answer.body.response_code);
      return compareWithRecord(answer.body.data ?? {}, subject);
    },
  };
}
