import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isE164, toE164 } from '../../src/platform/phone.js';

const digits = (length: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: length, maxLength: length }).map((d) => d.join(''));

describe('toE164', () => {
  it('writes Nigerian mobile numbers in every usual spelling as +234 and the 10-digit number', () => {
    for (const input of [
      '08031234567',
      '0803 123 4567',
      '0803-123-4567',
      '(0803) 123 4567',
      '2348031234567',
      '234 803 123 4567',
      '+2348031234567',
      '+234 803 123 4567',
      '+234 (0)803 123 4567',
      '+234 0803 123 4567',
      '002348031234567',
      '  0803 123 4567  ',
    ]) {
      assert.equal(toE164(input), '+2348031234567', input);
    }
  });

  it('takes every mobile range and the 2020-plan geographic numbers', () => {
    for (const [input, expected] of <Array<[string, string]>>[
      ['07011234567', '+2347011234567'],
      ['07121234567', '+2347121234567'],
      ['07021234567', '+2347021234567'],
      ['08101234567', '+2348101234567'],
      ['09031234567', '+2349031234567'],
      ['09161234567', '+2349161234567'],
      ['02011234567', '+2342011234567'],
      ['0209 123 4567', '+2342091234567'],
    ]) {
      assert.equal(toE164(input), expected, input);
    }
  });

  it('refuses Nigerian numbers with a digit too many or too few, or outside the plan', () => {
    for (const input of [
      '0803123456',
      '080312345678',
      '+234803123456',
      '+23480312345678',
      '2348031234',
      '08001234567',
      '07001234567',
      '09001234567',
      '06031234567',
      '01234567890',
      '+2341234567890',
      '0201234567',
      '02001234567',
      '+23412345678',
    ]) {
      assert.equal(toE164(input), null, input);
    }
  });

  it('takes other countries written with + or 00 and the country code, 8-15 digits in all', () => {
    for (const [input, expected] of <Array<[string, string]>>[
      ['+44 20 7946 0958', '+442079460958'],
      ['0044 20 7946 0958', '+442079460958'],
      ['+1 (415) 555-2671', '+14155552671'],
      ['+233 24 123 4567', '+233241234567'],
      ['+12345678', '+12345678'],
      ['+123456789012345', '+123456789012345'],
    ]) {
      assert.equal(toE164(input), expected, input);
    }
  });

  it('refuses what cannot be a phone number', () => {
    for (const input of [
      '',
      '   ',
      '+',
      '123',
      '1234567',
      '8031234567',
      '+1234567',
      '+1234567890123456',
      '+0123456789',
      '++2348031234567',
      '+234+8031234567',
      '0803 123 4567 ext 9',
      'call me maybe',
      '0803.123.4567',
      '0803\t123\t4567',
      '٠٨٠٣١٢٣٤٥٦٧',
      '4155552671',
      '1'.repeat(20),
    ]) {
      assert.equal(toE164(input), null, JSON.stringify(input));
    }
  });

  it('leaves an E.164 number as it is and always answers E.164 or null', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          digits(10).map((nsn) => `0${nsn}`),
          digits(10).map((nsn) => `+234${nsn}`),
          fc.integer({ min: 7, max: 16 }).chain((length) => digits(length).map((d) => `+${d}`)),
          fc.stringMatching(/^[0-9+() -]{1,20}$/),
        ),
        (input) => {
          const e164 = toE164(input);
          if (e164 === null) return;
          assert.match(e164, /^\+[1-9][0-9]{7,14}$/);
          assert.equal(toE164(e164), e164);
          assert.equal(isE164(e164), true);
        },
      ),
    );
  });

  it('says whether a value is already in the stored form', () => {
    assert.equal(isE164('+2348031234567'), true);
    assert.equal(isE164('08031234567'), false);
    assert.equal(isE164('+234 803 123 4567'), false);
  });
});
