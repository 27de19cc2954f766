import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Bank, NIP_BANKS, NIP_BANKS_BY_CODE } from '../../src/modules/transfers/banks.js';

const CATEGORIES: readonly Bank['category'][] = [
  'commercial',
  'merchant',
  'non_interest',
  'mobile_money',
  'microfinance',
];

describe('NIP_BANKS', () => {
  it('has 6-digit, unique codes', () => {
    for (const bank of NIP_BANKS) assert.match(bank.code, /^[0-9]{6}$/, bank.name);
    assert.equal(new Set(NIP_BANKS.map((bank) => bank.code)).size, NIP_BANKS.length);
  });

  it('has non-empty, trimmed, unique names', () => {
    for (const bank of NIP_BANKS) {
      assert.ok(bank.name.length > 0, bank.code);
      assert.equal(bank.name, bank.name.trim(), bank.code);
    }
    assert.equal(new Set(NIP_BANKS.map((bank) => bank.name)).size, NIP_BANKS.length);
  });

  it('is sorted by name', () => {
    const sorted = [...NIP_BANKS].sort((a, b) => a.name.localeCompare(b.name, 'en'));
    assert.deepEqual(
      NIP_BANKS.map((bank) => bank.name),
      sorted.map((bank) => bank.name),
    );
  });

  it('has the big banks under their NIP codes', () => {
    assert.equal(NIP_BANKS_BY_CODE.get('000013')?.name, 'Guaranty Trust Bank');
    assert.equal(NIP_BANKS_BY_CODE.get('000014')?.name, 'Access Bank');
    assert.equal(NIP_BANKS_BY_CODE.get('000016')?.name, 'First Bank of Nigeria');
    assert.equal(NIP_BANKS_BY_CODE.get('000015')?.name, 'Zenith Bank');
    assert.equal(NIP_BANKS_BY_CODE.get('000004')?.name, 'United Bank for Africa');
  });

  it('has at least one institution of each category, and only those categories', () => {
    for (const category of CATEGORIES) {
      assert.ok(
        NIP_BANKS.some((bank) => bank.category === category),
        category,
      );
    }
    for (const bank of NIP_BANKS) assert.ok(CATEGORIES.includes(bank.category), bank.code);
  });

  it("leaves out the app's own institution codes", () => {
    for (const code of ['999999', '999998', '090999']) assert.equal(NIP_BANKS_BY_CODE.has(code), false, code);
  });

  it('agrees with NIP_BANKS_BY_CODE', () => {
    assert.equal(NIP_BANKS_BY_CODE.size, NIP_BANKS.length);
    for (const bank of NIP_BANKS) assert.equal(NIP_BANKS_BY_CODE.get(bank.code), bank);
  });
});
