import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  checkDigit,
  institutionCode,
  isValidNuban,
  nuban,
} from '../../src/modules/virtual-accounts/nuban.js';

/**
 * The check digit of docs/partner-guide.md, "Virtual accounts", written out independently: weights
 * 3,7,3 repeating over the 15 digits code + serial.
 */
function referenceCheckDigit(code6: string, serial: string): number {
  const digits = `${code6}${serial}`;
  assert.equal(digits.length, 15);
  let sum = 0;
  for (let index = 0; index < 15; index++) sum += Number(digits[index]) * [3, 7, 3][index % 3]!;
  return (10 - (sum % 10)) % 10;
}

const digitString = (length: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: length, maxLength: length }).map((d) => d.join(''));

describe('NUBAN (CBN 2020 revision)', () => {
  it('matches the CBN worked example: code 000011, serial 000001457 → 0000014579', () => {
    assert.equal(checkDigit('000011', '000001457'), 9);
    assert.equal(nuban('000011', '000001457'), '0000014579');
    assert.equal(isValidNuban('000011', '0000014579'), true);
  });

  it('pads a 3-digit bank code with 000: the same number as the 6-digit form', () => {
    assert.equal(institutionCode('011'), '000011');
    assert.equal(nuban('011', '000001457'), '0000014579');
    fc.assert(
      fc.property(digitString(3), digitString(9), (code, serial) => {
        assert.equal(nuban(code, serial), nuban(`000${code}`, serial));
      }),
    );
  });

  it('gives a 5-digit institution code the 9 prefix and computes the check digit over 9+code+serial', () => {
    assert.equal(institutionCode('50211'), '950211');
    const serial = '123456789';
    const expected = referenceCheckDigit('950211', serial);
    assert.equal(checkDigit('50211', serial), expected);
    assert.equal(nuban('50211', serial), `${serial}${expected}`);
    // The prefix digit weighs 3, so a 9 there always changes the check digit against a 0.
    assert.notEqual(checkDigit('50211', serial), referenceCheckDigit('050211', serial));
    assert.equal(isValidNuban('50211', nuban('50211', serial)), true);
    assert.equal(isValidNuban('950211', nuban('50211', serial)), true);
  });

  it('uses a 6-digit institution code as it is', () => {
    assert.equal(institutionCode('999999'), '999999');
    assert.equal(institutionCode('090999'), '090999');
    fc.assert(
      fc.property(digitString(6), digitString(9), (code, serial) => {
        assert.equal(checkDigit(code, serial), referenceCheckDigit(code, serial));
        const number = nuban(code, serial);
        assert.match(number, /^[0-9]{10}$/);
        assert.equal(number.slice(0, 9), serial);
        assert.equal(isValidNuban(code, number), true);
      }),
    );
  });

  it('rejects a number with any single digit changed', () => {
    fc.assert(
      fc.property(
        digitString(6),
        digitString(9),
        fc.integer({ min: 0, max: 9 }),
        fc.integer({ min: 1, max: 9 }),
        (code, serial, position, delta) => {
          const number = nuban(code, serial);
          const changed =
            number.slice(0, position) +
            String((Number(number[position]) + delta) % 10) +
            number.slice(position + 1);
          assert.notEqual(changed, number);
          assert.equal(isValidNuban(code, changed), false, `${changed} accepted for ${code}`);
        },
      ),
    );
    assert.equal(isValidNuban('000011', '0000014578'), false);
    assert.equal(isValidNuban('000011', '1000014579'), false);
  });

  it('rejects numbers of the wrong length or with non-digits', () => {
    for (const candidate of [
      '',
      '000001457',
      '00000145790',
      '000001457a',
      'O000014579',
      ' 0000014579',
      '0000014579 ',
      '00000-1457',
      '+000014579',
      '０000014579',
    ]) {
      assert.equal(isValidNuban('000011', candidate), false, JSON.stringify(candidate));
    }
  });

  it('is valid only for the institution it was made for', () => {
    // 9·(3+7+3+3+7+3) + (1·3 + 4·3 + 5·7 + 7·3) = 305 → check digit 5.
    const number = nuban('999999', '000001457');
    assert.equal(number, '0000014575');
    assert.equal(isValidNuban('999999', number), true);
    assert.equal(isValidNuban('000011', number), false);
    assert.equal(isValidNuban('999999', '0000014579'), false);
  });

  it('throws on an institution code that is not 3, 5 or 6 digits', () => {
    for (const code of ['', '1', '12', '1234', '1234567', '12a', 'abcde', '12345a', ' 011', '011 ', '-11']) {
      assert.throws(() => institutionCode(code), RangeError, JSON.stringify(code));
      assert.throws(() => nuban(code, '000001457'), RangeError, JSON.stringify(code));
      assert.throws(() => checkDigit(code, '000001457'), RangeError, JSON.stringify(code));
    }
  });

  it('throws on a serial that is not exactly 9 digits', () => {
    for (const serial of ['', '12345678', '1234567890', '12345678a', ' 12345678', '1234.5678', '-12345678']) {
      assert.throws(() => nuban('999999', serial), RangeError, JSON.stringify(serial));
      assert.throws(() => checkDigit('999999', serial), RangeError, JSON.stringify(serial));
    }
  });
});
