/** A real HTTP receiver on loopback for webhook tests: it records every request and answers as told. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  raw: string;
  body: { id: string; type: string; created_at: string; data: Record<string, unknown>; project_id: string; object: string };
  headers: IncomingHttpHeaders;
}

/** What to answer the n-th request (1-based): a status, or 'hang' to never answer. */
export type Answer = (n: number) => number | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export async function startReceiver(answer: Answer = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      received.push({ raw, body: JSON.parse(raw) as Received['body'], headers: req.headers });
      const status = answer(received.length);
      if (status === 'hang') hanging.push(res);
      else res.writeHead(status).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Checks a delivery's signature the way the contract tells receivers to. */
export function validSignature(received: Received, secret: string): boolean {
  const header = String(received.headers['x-webhook-signature'] ?? '');
  const expected = `sha256=${createHmac('sha256', secret).update(received.raw).digest('hex')}`;
  return header.length === expected.length && timingSafeEqual(Buffer.from(header), Buffer.from(expected));
}

/** Polls until `check` returns a value other than undefined, or fails after `seconds`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, seconds = 10): Promise<T> {
  const until = Date.now() + seconds * 1000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`condition not met within ${seconds} s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
