import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** The payload as verified by the public Standard Webhooks library, or undefined if it failed. */
  verified: unknown;
}

/**
 * A real HTTP receiver on loopback that verifies every delivery with the `standardwebhooks`
 * library. `respond` decides each answer (default 200); set `delayMs` to simulate a slow receiver.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  respond: (delivery: ReceivedWebhook) => number = () => 200;
  delayMs = 0;
  secret: string | undefined;
  private server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(request.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
      };
      let verified: unknown;
      try {
        verified = this.secret ? new Webhook(this.secret).verify(body, headers) : undefined;
      } catch {
        verified = undefined;
      }
      const delivery = {
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        body,
        verified,
      };
      this.received.push(delivery);
      const status = this.respond(delivery);
      setTimeout(() => {
        response.writeHead(status, { 'content-type': 'text/plain' });
        response.end('ok');
      }, this.delayMs).unref();
    });
  });

  async start(port = 0): Promise<this> {
    this.server.listen(port, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async waitFor(predicate: (deliveries: ReceivedWebhook[]) => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.received)) {
      if (Date.now() > deadline)
        throw new Error(`webhook condition not met in ${timeoutMs} ms; received ${this.received.length}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
