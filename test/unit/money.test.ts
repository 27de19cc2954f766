import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { koboToDecimal, koboToNaira, nairaToKobo } from '../../src/modules/virtual-accounts/money.js';

describe('nairaToKobo', () => {
  it('converts from the decimal text, so binary floats convert exactly', () => {
    assert.equal(nairaToKobo(0.29), 29); // 0.29 * 100 is 28.999999999999996 in floating point
    assert.equal(nairaToKobo(0.57), 57);
    assert.equal(nairaToKobo(1.15), 115);
    assert.equal(nairaToKobo(0.01), 1);
    assert.equal(nairaToKobo(1500.5), 150050);
    assert.equal(nairaToKobo(10_000_000), 1_000_000_000);
    assert.equal(nairaToKobo(0), 0);
  });

  it('accepts decimal strings with up to two places', () => {
    assert.equal(nairaToKobo('1500.50'), 150050);
    assert.equal(nairaToKobo('1500.5'), 150050);
    assert.equal(nairaToKobo('0.29'), 29);
    assert.equal(nairaToKobo('10000000.00'), 1_000_000_000);
    assert.equal(nairaToKobo('7'), 700);
  });

  it('refuses more than two decimals instead of rounding', () => {
    assert.equal(nairaToKobo(1.005), undefined);
    assert.equal(nairaToKobo('1.234'), undefined);
    assert.equal(nairaToKobo('1.005'), undefined);
    assert.equal(nairaToKobo(0.001), undefined);
  });

  it('refuses negatives, non-numbers, non-finite numbers and exponent notation', () => {
    for (const amount of [
      -1,
      -0.01,
      '-1',
      'abc',
      '',
      '1,000',
      '1.',
      '.5',
      '0x10',
      NaN,
      Infinity,
      -Infinity,
    ]) {
      assert.equal(nairaToKobo(amount), undefined, String(amount));
    }
    assert.equal(nairaToKobo(1e21), undefined); // String(1e21) is "1e+21"
    assert.equal(nairaToKobo('1e3'), undefined);
    assert.equal(nairaToKobo('1E3'), undefined);
  });

  it('refuses amounts beyond safe-integer kobo', () => {
    assert.equal(nairaToKobo('90071992547409.92'), undefined);
    assert.equal(nairaToKobo('999999999999999999999'), undefined);
  });

  it('round-trips every kobo amount through its decimal text and its naira number', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e13 }), (kobo) => {
        assert.equal(nairaToKobo(koboToDecimal(kobo)), kobo);
        assert.equal(nairaToKobo(koboToNaira(kobo)), kobo);
      }),
    );
  });
});

describe('koboToDecimal', () => {
  it('writes integer kobo as naira with exactly two decimals', () => {
    assert.equal(koboToDecimal(150050), '1500.50');
    assert.equal(koboToDecimal(29), '0.29');
    assert.equal(koboToDecimal(5), '0.05');
    assert.equal(koboToDecimal(0), '0.00');
    assert.equal(koboToDecimal(100), '1.00');
    assert.equal(koboToDecimal(1_000_000_000), '10000000.00');
    assert.equal(koboToDecimal(-150), '-1.50');
    assert.equal(koboToDecimal(-5), '-0.05');
  });

  it('is the exact kobo/100 number for koboToNaira', () => {
    assert.equal(koboToNaira(150050), 1500.5);
    assert.equal(koboToNaira(29), 0.29);
    assert.equal(koboToNaira(580), 5.8);
  });
});
