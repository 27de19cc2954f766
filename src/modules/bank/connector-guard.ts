import type { BlockList } from 'node:net';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import { verify } from '../../platform/crypto/standard-webhooks.js';
import { AppError } from '../../platform/errors/errors.js';

/** An IPv4 address written as IPv6 (`::ffff:10.0.0.7`), as a dual-stack socket reports one. */
const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** Whether `address` is on the list, whichever way the socket spelled an IPv4 address. */
export function isAllowed(list: BlockList, address: string): boolean {
  const mapped = MAPPED_IPV4.exec(address)?.[1];
  if (mapped !== undefined) return list.check(mapped, 'ipv4');
  return list.check(address, address.includes(':') ? 'ipv6' : 'ipv4');
}

/**
 * Who may call /bank/*: an address on BANK_CONNECTOR_ALLOWED_IPS (when set; else 403 FORBIDDEN,
 * checked first and cheaply), and a message signed with BANK_CONNECTOR_SECRET over its raw bytes
 * within 5 minutes of our clock (else 401 SIGNATURE_INVALID). The signature is checked on the bytes
 * as they arrived, before they are parsed (`verifyBody`), or on an empty body when none came.
 */
export function connectorGuard(options: { secret: string; allowList: BlockList | undefined; clock: Clock }) {
  const verified = new WeakSet<FastifyRequest>();
  const check = (request: FastifyRequest, body: Buffer) => {
    const problem = verify(options.secret, request.headers, body, Math.floor(options.clock.now() / 1000));
    if (problem)
      throw new AppError('SIGNATURE_INVALID', { message: `Bank connector signature refused: ${problem}` });
    verified.add(request);
  };
  return {
    onRequest: async (request: FastifyRequest) => {
      if (options.allowList && !isAllowed(options.allowList, request.ip)) {
        throw new AppError('FORBIDDEN', {
          message: 'This address may not call the bank connector endpoints.',
        });
      }
    },
    verifyBody: check,
    preValidation: async (request: FastifyRequest) => {
      if (!verified.has(request)) check(request, Buffer.alloc(0));
    },
  };
}
