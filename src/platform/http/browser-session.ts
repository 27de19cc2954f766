import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply } from 'fastify';
import { extend } from '../objects.js';

/**
 * A browser session cookie: HttpOnly (page scripts cannot read it), SameSite=Strict, host-only;
 * `__Host-` prefixed and Secure in production, plain over http in local development
 * (docs/partner-guide.md, "Authentication"; docs/operator-guide.md, "Who may call it").
 */
export interface BrowserCookie {
  name: string;
  set(reply: FastifyReply, token: string, maxAgeSeconds: number): void;
  clear(reply: FastifyReply): void;
}

export function browserCookie(baseName: string, secure: boolean): BrowserCookie {
  const name = secure ? `__Host-${baseName}` : baseName;
  const options: CookieSerializeOptions = { httpOnly: true, sameSite: 'strict', path: '/', secure };
  return {
    name,
    set: (reply, token, maxAgeSeconds) => {
      reply.setCookie(name, token, extend(options, { maxAge: maxAgeSeconds }));
    },
    clear: (reply) => {
      reply.clearCookie(name, options);
    },
  };
}
