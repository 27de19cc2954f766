import { once } from 'node:events';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
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
 * library. `respond` decides each answer's status (default 200, body "ok"); set `delayMs` to simulate
 * a slow receiver, or `reply` to write the whole answer (a body of its own, a huge or a slow one).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  respond: (delivery: ReceivedWebhook) => number = () => 200;
  reply: ((delivery: ReceivedWebhook, response: http.ServerResponse) => void) | undefined;
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
      if (this.reply) {
        // The sender may hang up mid-body (its caps): a write to the closed socket is expected then.
        response.on('error', () => undefined);
        this.reply(delivery, response);
        return;
      }
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

/**
 * A loopback TCP port that is not an HTTP receiver, as a port scan through webhooks would find one:
 * `hang-up` accepts and closes at once (a database refusing a stranger), `banner` greets in its own
 * protocol (SSH), `silent` accepts and never answers.
 */
export class NonHttpServer {
  behaviour: 'hang-up' | 'banner' | 'silent' = 'hang-up';
  private readonly sockets = new Set<net.Socket>();
  private readonly server = net.createServer((socket) => {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    if (this.behaviour === 'hang-up') socket.destroy();
    else if (this.behaviour === 'banner') socket.write('SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n');
  });

  async start(): Promise<this> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
