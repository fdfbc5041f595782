import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One webhook POST the inbox received. */
export interface WebhookDelivery {
  body: unknown;
  /** Media type without parameters, e.g. application/json. */
  contentType: string;
  headers: Record<string, string | string[] | undefined>;
}

/** The event envelope fields the inbox filters by. */
export interface DeliveredEvent {
  topic?: string;
  type?: string;
  accountId?: string;
}

export interface WaitOptions {
  timeoutMs?: number;
  /** Called while nothing matched yet (e.g. to move the provider's clock); at most every 200 ms, 20 times. */
  whileWaiting?: () => Promise<void>;
}

export interface WebhookInbox {
  /** The URL Event Channels deliver to. */
  readonly url: string;
  /** Resolves with the first delivery (already received or still to come) whose event matches. */
  waitFor(match: (event: DeliveredEvent) => boolean, options?: WaitOptions): Promise<WebhookDelivery>;
  readonly deliveries: readonly WebhookDelivery[];
  close(): Promise<void>;
}

/**
 * A local HTTP receiver for webhook deliveries, so message pacts are verified against what the
 * provider really POSTs. Answers 204 to every POST.
 *
 * @example
 * const inbox = await startWebhookInbox({ port: 0 });
 * const delivery = await inbox.waitFor((e) => e.topic === 'SHIPMENT_BOOKING');
 */
export async function startWebhookInbox(options: { port?: number; host?: string; publicUrl?: string } = {}): Promise<WebhookInbox> {
  const deliveries: WebhookDelivery[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // Kept as text: the message pact then reports the mismatch.
      }
      deliveries.push({ body, contentType: String(req.headers['content-type'] ?? '').split(';')[0].trim(), headers: req.headers });
      res.writeHead(req.method === 'POST' ? 204 : 405).end();
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const find = (match: (event: DeliveredEvent) => boolean) =>
    deliveries.find((d) => d.body !== null && typeof d.body === 'object' && match(d.body as DeliveredEvent));

  return {
    url: options.publicUrl ?? `http://${host}:${port}/webhooks`,
    deliveries,
    async waitFor(match, wait = {}) {
      const deadline = Date.now() + (wait.timeoutMs ?? 10_000);
      let nudges = 0;
      let nextNudge = Date.now() + 200;
      for (;;) {
        const found = find(match);
        if (found) return found;
        if (Date.now() > deadline) {
          const seen = deliveries.map((d) => `${(d.body as DeliveredEvent)?.topic}/${(d.body as DeliveredEvent)?.type}`).join(', ') || 'none';
          throw new Error(`no matching webhook delivery within ${wait.timeoutMs ?? 10_000} ms (received: ${seen})`);
        }
        if (wait.whileWaiting && nudges < 20 && Date.now() >= nextNudge) {
          nudges++;
          nextNudge = Date.now() + 200;
          await wait.whileWaiting();
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
