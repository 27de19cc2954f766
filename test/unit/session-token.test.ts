import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_KEY_PREFIX, randomSessionToken } from '../../src/platform/crypto/tokens.js';

describe('session tokens', () => {
  it('never start like an API key: a random draw that does is drawn again', () => {
    // Base64url text starts with "sk_" one time in 262,144: the draws are given here.
    const draws = ['sk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'sk_BBBB', 'QUJD-session-token'];
    const token = randomSessionToken(() => draws.shift()!);
    assert.equal(token, 'QUJD-session-token');
    assert.deepEqual(draws, [], 'each draw was taken in turn');
  });

  it('are 43 base64url characters (256 bits) from the CSPRNG by default', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => randomSessionToken()));
    assert.equal(tokens.size, 1000);
    for (const token of tokens) {
      assert.match(token, /^[A-Za-z0-9_-]{43}$/);
      assert.ok(!token.startsWith(API_KEY_PREFIX));
    }
  });
});
