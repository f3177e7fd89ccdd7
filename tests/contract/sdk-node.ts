/**
 * The Node.js SDK `voucherify` 5.2.0, unmodified, against the target, for the `sdk-node-*` test files.
 *
 * The SDK makes its requests with the `request` library, not with `fetch`, so they would bypass the suite's
 * recording fetch (which notes every status and checks every response against the contract, also for a
 * remote target). The SDK is therefore pointed at a small local relay that passes each request on through
 * that fetch, byte for byte, and the answer back.
 */
import { afterAll, beforeAll, expect } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import voucherify from 'voucherify';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { nodeSdkMethods, recording } from './sdk-methods.js';
import { listen, recordingFetch, type Target } from './target.js';

export type NodeSdk = voucherify.VoucherifyClient;
export type { Body, Query, Reply } from 'voucherify';

/** Connection-level headers, which belong to each hop rather than to the request. */
const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

async function relay(baseUrl: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const answer = await recordingFetch(`${baseUrl}${request.url ?? '/'}`, {
      method: request.method ?? 'GET',
      headers,
      ...(chunks.length > 0 && { body: Buffer.concat(chunks) }),
    });
    const body = Buffer.from(await answer.arrayBuffer());
    const contentType = answer.headers.get('content-type');
    response.writeHead(answer.status, contentType ? { 'content-type': contentType } : {});
    response.end(body);
  } catch (error) {
    response.writeHead(502, { 'content-type': 'text/plain' });
    response.end(`relay failed: ${String(error)}`);
  }
}

/**
 * A recorded SDK client for the target of `ctx` (call after `useTarget()`): `calls` collects every SDK
 * method called through it, by its place (`vouchers.balance.create`).
 */
export function useNodeSdk(ctx: { target: Target }): { sdk: NodeSdk; calls: Set<string> } {
  const box = { calls: new Set<string>() } as { sdk: NodeSdk; calls: Set<string> };
  let server: Server | undefined;
  beforeAll(async () => {
    const { target } = ctx;
    const relayServer = createServer((request, response) => void relay(target.baseUrl, request, response));
    const { server: started, baseUrl } = await listen(relayServer);
    server = started;
    const client = voucherify({ applicationId: target.credentials.appId, clientSecretKey: target.credentials.appToken, apiUrl: baseUrl });
    box.sdk = recording(client, box.calls);
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });
  return box;
}

/** What a refused SDK call rejects with, as the plain fields of the API's error. */
export async function refusal(call: Promise<unknown>): Promise<{ code?: number; key?: string; message: string; details?: string }> {
  try {
    await call;
  } catch (error) {
    const { code, key, message, details } = error as voucherify.VoucherifyError;
    return { code, key, message, details };
  }
  throw new Error('the call succeeded');
}

/**
 * The Node.js SDK methods under the given namespaces that reach a contract operation, as the inventory
 * (`nodeSdkMethods`) reads them from the SDK's source.
 */
export function inventoryOf(namespaces: string[]): string[] {
  const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8'));
  const names = nodeSdkMethods(contract)
    .filter((method) => method.operationId !== undefined)
    .map((method) => method.name)
    .filter((name) => namespaces.some((namespace) => name.startsWith(`${namespace}.`)));
  return [...new Set(names)].sort();
}

/** Checks that every method in `expected` was called through the recorded client. */
export function expectAllCalled(calls: Set<string>, expected: string[]): void {
  expect(expected.filter((name) => !calls.has(name))).toEqual([]);
}
