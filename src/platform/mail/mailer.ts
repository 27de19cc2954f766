import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import type { Logger } from 'pino';
import { newId } from '../crypto/tokens.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative of `text` (multipart/alternative): self-contained, no remote content. */
  html?: string;
}

/** Hands one message to the mail server; rejects when it was not accepted. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export interface MailerOptions {
  smtpUrl: string | undefined;
  from: string;
  outboxDir: string;
  /** Connection, greeting and socket-inactivity timeout of each SMTP attempt. */
  timeoutMs: number;
  log: Logger;
}

/**
 * nodemailer reads transport options from a URL's query string only: options passed beside a URL
 * string are taken as message defaults, so the timeouts must travel in the URL itself. Values the
 * operator put in SMTP_URL win.
 */
export function smtpUrlWithTimeouts(smtpUrl: string, timeoutMs: number): string {
  const url = new URL(smtpUrl);
  for (const option of ['connectionTimeout', 'greetingTimeout', 'socketTimeout', 'dnsTimeout']) {
    if (!url.searchParams.has(option)) url.searchParams.set(option, String(timeoutMs));
  }
  return url.toString();
}

type Nodemailer = typeof import('nodemailer');

/**
 * The transport is made when the first message goes out: nodemailer (some 35 modules, about 5 MiB of
 * RSS) is loaded only by a process that sends mail, like pg and ioredis only where they are configured.
 */
function lazily(create: (nodemailer: Nodemailer) => Transporter) {
  let transport: Transporter | undefined;
  return {
    get: () => {
      transport ??= create(createRequire(import.meta.url)('nodemailer') as Nodemailer);
      return transport;
    },
    close: () => transport?.close(),
  };
}

/**
 * SMTP when SMTP_URL is set. Without it (development) each message is written as an .eml file under
 * DATA_DIR/outbox and its path logged, so `npm start` alone lets a developer read the OTP; the code
 * itself never goes to the log.
 */
export function createMailer(options: MailerOptions): Mailer {
  if (options.smtpUrl) {
    const url = smtpUrlWithTimeouts(options.smtpUrl, options.timeoutMs);
    const transport = lazily((nodemailer) => {
      const created = nodemailer.createTransport(url);
      created.on('error', (error) => options.log.error({ err: error }, 'SMTP transport error'));
      return created;
    });
    return {
      async send(message) {
        await transport.get().sendMail({ from: options.from, ...message });
      },
      close: transport.close,
    };
  }

  const transport = lazily((nodemailer) =>
    nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
  );
  return {
    async send(message) {
      const info = await transport.get().sendMail({ from: options.from, ...message });
      mkdirSync(options.outboxDir, { recursive: true, mode: 0o700 });
      const file = path.join(
        options.outboxDir,
        `${new Date().toISOString().replace(/[:.]/g, '-')}-${newId()}.eml`,
      );
      writeFileSync(file, info.message as Buffer, { mode: 0o600 });
      chmodSync(file, 0o600);
      options.log.info(
        { to: message.to, subject: message.subject, outbox_file: file },
        'SMTP_URL is not set: e-mail written to the outbox',
      );
    },
    close: transport.close,
  };
}
