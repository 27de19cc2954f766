import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressPolicy, embeddedIPv4 } from '../../src/modules/webhooks/ssrf.js';

describe('SSRF guard: policy per environment', () => {
  it('is public-only for live, and for sandbox in production', () => {
    assert.equal(addressPolicy('live', { allowPrivate: false, production: false }), 'public-only');
    assert.equal(addressPolicy('live', { allowPrivate: false, production: true }), 'public-only');
    assert.equal(addressPolicy('sandbox', { allowPrivate: false, production: true }), 'public-only');
  });

  it('lets a sandbox outside production reach private addresses but not link-local', () => {
    assert.equal(addressPolicy('sandbox', { allowPrivate: false, production: false }), 'no-link-local');
  });

  it('is lifted by WEBHOOK_ALLOW_PRIVATE', () => {
    assert.equal(addressPolicy('live', { allowPrivate: true, production: false }), 'any');
    assert.equal(addressPolicy('sandbox', { allowPrivate: true, production: false }), 'any');
  });
});

describe('SSRF guard: IPv4 addresses inside IPv6 ones', () => {
  it('finds the IPv4 address of every embedding form', () => {
    const cases: [string, string[]][] = [
      ['::7f00:1', ['127.0.0.1']], // IPv4-compatible
      ['::127.0.0.1', ['127.0.0.1']],
      ['::ffff:7f00:1', ['127.0.0.1']], // IPv4-mapped
      ['::ffff:169.254.169.254', ['169.254.169.254']],
      ['[::ffff:a9fe:a9fe]', ['169.254.169.254']],
      ['::ffff:0:a00:1', ['10.0.0.1']], // IPv4-translated
      ['64:ff9b::c0a8:101', ['192.168.1.1']], // NAT64
      ['2002:a9fe:a9fe::1', ['169.254.169.254']], // 6to4
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', ['65.54.227.120', '192.0.2.45']], // Teredo (RFC 4380)
      ['2001:db8::200:5efe:a00:1', ['10.0.0.1']], // ISATAP
      ['fe80::5efe:a9fe:a9fe', ['169.254.169.254']],
    ];
    for (const [address, expected] of cases) assert.deepEqual(embeddedIPv4(address), expected, address);
  });

  it('cannot place the IPv4 address of local-use NAT64 (any RFC 6052 prefix length)', () => {
    assert.equal(embeddedIPv4('64:ff9b:1::a9fe:a9fe'), 'unknown');
  });

  it('finds none in plain IPv6 or IPv4 addresses', () => {
    for (const address of ['2606:4700:4700::1111', 'fe80::1', 'fd00:ec2::254', '8.8.8.8', 'localhost']) {
      assert.deepEqual(embeddedIPv4(address), [], address);
    }
  });
});
