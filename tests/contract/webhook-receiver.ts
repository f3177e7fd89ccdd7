/**
 * A real HTTP receiver on loopback for webhook tests: it records every request and answers as told. Also
 * checks payloads against their kind's schema in the strict twin, as a receiver generating types would.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { components } from '../../client/index.js';
import { STRICT_CONTRACT } from '../../server/paths.js';
import { pointerPart } from './conformance.js';

export type Payload = components['schemas']['WebhookEvent'];

export interface Received {
  raw: string;
  body: Payload;
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

/** The replay tolerance the contract recommends to receivers. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * Checks a delivery's signature the way the contract tells receivers to: `t=<seconds>,v1=<hex>` where the hex
 * is the HMAC-SHA256 of `<t>.<raw body>`, and a timestamp no further than the tolerance from our clock.
 */
export function validSignature(received: Received, secret: string, nowSeconds = Date.now() / 1000): boolean {
  return signatureProblem(received, secret, nowSeconds) === undefined;
}

/** Why a delivery's signature is refused, or undefined when it is good. */
export function signatureProblem(received: Received, secret: string, nowSeconds = Date.now() / 1000): string | undefined {
  const header = String(received.headers['x-webhook-signature'] ?? '');
  const parts = new Map(header.split(',').map((part) => [part.slice(0, part.indexOf('=')), part.slice(part.indexOf('=') + 1)] as const));
  const timestamp = parts.get('t') ?? '';
  const given = parts.get('v1') ?? '';
  if (!/^\d+$/.test(timestamp) || !/^[0-9a-f]{64}$/.test(given)) return `malformed header: ${header}`;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${received.raw}`).digest('hex');
  if (!timingSafeEqual(Buffer.from(given), Buffer.from(expected))) return 'signature does not match';
  if (Math.abs(nowSeconds - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) return 'timestamp outside the tolerance';
  return undefined;
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

// ajv-formats is CommonJS: under Node's ESM its plugin is `default`, under jest's interop `default.default`.
type FormatsPlugin = (ajv: Ajv2020, options: { mode: 'full' }) => unknown;
const formatsModule = ajvFormats as unknown as { default: FormatsPlugin | { default: FormatsPlugin } };
const addFormats: FormatsPlugin = typeof formatsModule.default === 'function' ? formatsModule.default : formatsModule.default.default;

interface WebhookOperation {
  operationId: string;
  requestBody: { content: { 'application/json': { schema: unknown } } };
}

/**
 * Validates payloads against the strict twin (every object closed), by kind: the schema of the contract's
 * `webhooks` entry whose payload `type` is the kind.
 */
export class PayloadChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  private readonly byKind = new Map<string, ValidateFunction>();
  /** The operationId of each kind's own entry. */
  readonly operations = new Map<string, string>();

  constructor(contract = JSON.parse(readFileSync(STRICT_CONTRACT, 'utf8')) as { webhooks: Record<string, { post: WebhookOperation }> }) {
    addFormats(this.ajv, { mode: 'full' });
    this.ajv.addSchema(contract as object, 'contract');
    for (const [key, item] of Object.entries(contract.webhooks)) {
      // The catch-all entry takes every kind; each kind's own entry is named by its kind.
      if (item.post.operationId !== 'receive-event') this.operations.set(key, item.post.operationId);
    }
  }

  /** A kind's validator, compiled when first needed. */
  private validator(kind: string): ValidateFunction | undefined {
    if (!this.operations.has(kind)) return undefined;
    let validate = this.byKind.get(kind);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `contract#/webhooks/${pointerPart(kind)}/post/requestBody/content/application~1json/schema` });
      this.byKind.set(kind, validate);
    }
    return validate;
  }

  /** The payload's violations of its kind's schema; one line each, empty when it conforms. */
  violations(payload: { type: string }): string[] {
    const kind = payload.type;
    const validate = this.validator(kind);
    if (!validate) return [`no webhook entry for the kind ${kind}`];
    if (validate(payload as unknown)) return [];
    return (validate.errors ?? []).map((error) => {
      const property = error.params as { unevaluatedProperty?: string; missingProperty?: string };
      const named = property.unevaluatedProperty ?? property.missingProperty;
      return `${kind}: ${error.instancePath || '(body)'} ${error.message ?? 'is invalid'}${named === undefined ? '' : ` (${named})`}`;
    });
  }
}
