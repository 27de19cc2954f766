import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { until } from './assertions.js';

export type CodeKind = 'verification' | 'password reset';

/** The 6-digit code an e-mail carries (a verification code unless `kind` says otherwise). */
export const codeIn = (text: string, kind: CodeKind = 'verification'): string | undefined =>
  new RegExp(`${kind} code is (\\d{6})`).exec(text)?.[1];

/** The development mailer's .eml under DATA_DIR/outbox addressed to `email` (no SMTP_URL), once written. */
export async function outboxMail(dataDir: string, email: string): Promise<{ file: string; text: string }> {
  const dir = path.join(dataDir, 'outbox');
  return until(`an outbox e-mail to ${email}`, () => {
    if (!existsSync(dir)) return undefined;
    let found: { file: string; text: string } | undefined;
    for (const name of readdirSync(dir)) {
      const text = readFileSync(path.join(dir, name), 'utf8');
      if (text.includes(email)) found = { file: path.join(dir, name), text };
    }
    return found;
  });
}

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on loopback that keeps every message it receives. */
export class SmtpSink {
  readonly messages: ReceivedMail[] = [];
  private server: SMTPServer;
  private waiters: Array<() => void> = [];
  port = 0;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      // stop() waits this long for the app's pooled SMTP connections to end before it cuts them (30 s by default).
      closeTimeout: 1_000,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        // A client cut mid-message (a server the test SIGKILLs) leaves no message, not an error.
        stream.on('error', () => undefined);
        stream.on('end', () => {
          this.messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          for (const wake of this.waiters.splice(0)) wake();
          callback();
        });
      },
    });
  }

  async start(port = 0): Promise<this> {
    // smtp-server re-emits a client connection's errors on the server: a client killed with its socket
    // open (the crash tests SIGKILL servers that e-mail) gives ECONNRESET there, which without a listener
    // is an uncaught exception in the test file. A lost connection is the client's event, not the sink's.
    this.server.on('error', () => undefined);
    this.server.listen(port, '127.0.0.1');
    await once(this.server.server, 'listening');
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  mailsTo(address: string): ReceivedMail[] {
    return this.messages.filter((mail) => mail.to.includes(address.toLowerCase()));
  }

  /** Waits for the n-th message (1-based) to the address. */
  async waitForMail(address: string, count = 1, timeoutMs = 5000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const mails = this.mailsTo(address);
      if (mails.length >= count) return mails[count - 1]!;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`no e-mail #${count} to ${address} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The 6-digit code of the n-th e-mail to the address (a verification code unless `kind` says otherwise). */
  async otpFor(address: string, count = 1, kind: CodeKind = 'verification'): Promise<string> {
    const mail = await this.waitForMail(address, count);
    const code = codeIn(mail.raw, kind);
    if (!code) throw new Error(`no ${kind} code in the e-mail to ${address}:\n${mail.raw}`);
    return code;
  }

  /** The code of the latest e-mail to the address that carries one, without waiting. */
  latestCode(address: string, kind: CodeKind = 'verification'): string | undefined {
    return this.mailsTo(address)
      .map((mail) => codeIn(mail.raw, kind))
      .findLast((code) => code !== undefined);
  }
}

/** A loopback port nothing listens on (yet). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
