import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { EVENTS } from '../../src/events.js';
import { createEventSerializer } from '../../src/platform/events/catalog.js';

const account = {
  id: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  account_number: '9912345678',
  account_name: 'Acme Payments Ltd/Ada Eze',
  bank_name: 'BaaS Partner Bank',
  bank_code: '999999',
  currency: 'NGN',
  status: 'active',
  status_reason: null,
  status_changed_at: null,
  balance: 1500.5,
  balance_kobo: 150050,
  available_balance: 1500.5,
  available_balance_kobo: 150050,
  environment: 'sandbox',
  customer: { first_name: 'Ada', last_name: 'Eze', email: 'ada@example.com', phone: '+2348090000000' },
  created_at: '2026-11-25T05:00:00.000Z',
};

describe('event payload serializer', () => {
  const serialize = createEventSerializer(EVENTS);

  it('keeps what the schema lists and drops everything else, at every depth, leaving the input as it was', () => {
    const input = {
      ...account,
      partner_id: 42,
      secret_encrypted: 'sealed',
      customer: { ...account.customer, bvn: '22212345678', notes: ['x'] },
    };
    const before = structuredClone(input);
    assert.deepEqual(JSON.parse(serialize('virtual_account.created', input)), account);
    assert.deepEqual(input, before);
  });

  it('prunes nested objects of a credit (the transaction and the account after it)', () => {
    const transaction = {
      id: '0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c',
      type: 'credit',
      kind: 'inbound_transfer',
      amount: 1500.5,
      amount_kobo: 150050,
      balance_after: 1500.5,
      balance_after_kobo: 150050,
      currency: 'NGN',
      narration: null,
      reference: 'ref-1',
      session_id: '000013261127120000123456789012',
      counterparty: {
        account_name: 'CHIOMA ADEBAYO',
        account_number: '0123456789',
        bank_code: '000013',
        bank_name: 'GTBank',
      },
      transfer_id: null,
      created_at: '2026-11-25T05:00:00.000Z',
    };
    const payload = serialize('virtual_account.credited', {
      transaction: { ...transaction, sender_bvn: '22212345678' },
      account: { ...account, internal: true },
      partner_id: 42,
    });
    assert.deepEqual(JSON.parse(payload), { transaction, account });
  });

  it('refuses a payload that does not match its schema', () => {
    const { customer: _dropped, ...withoutCustomer } = account;
    assert.throws(() => serialize('virtual_account.created', withoutCustomer), /does not match its schema/);
    assert.throws(
      () => serialize('virtual_account.created', { ...account, balance_kobo: '150050' }),
      /does not match its schema/,
    );
    assert.throws(
      () => serialize('onboarding.status_changed', { company_id: 1, onboarding_status: 'dreaming' }),
      /does not match its schema/,
    );
  });

  it('never lets an unlisted key through, whatever its name or value', () => {
    const listed = new Set([...Object.keys(account), 'first_name', 'last_name', 'email', 'phone']);
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string({ minLength: 1 }).filter((key) => !listed.has(key) && key !== '__proto__'),
          fc.jsonValue(),
        ),
        (extra) => {
          const payload = JSON.parse(
            serialize('virtual_account.created', {
              ...extra,
              ...account,
              customer: { ...extra, ...account.customer },
            }),
          );
          assert.deepEqual(payload, account);
        },
      ),
    );
  });
});
