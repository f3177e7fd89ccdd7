/**
 * Requests as bytes on the wire, for what `raw` cannot send: chosen headers (`Content-Encoding`), a body of
 * bytes, or a chunked body. They go through the suite's recording fetch, so their statuses and the shape of
 * every answer are checked after each test like any other request.
 */
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { recordingFetch, seenStatuses, type Target } from './target.js';

export interface WireRequest {
  headers?: Record<string, string>;
  /** Bytes sent with a Content-Length; `chunked` sends them as a chunked stream instead. */
  body?: string | Uint8Array;
  chunked?: boolean;
  /**
   * No body and neither Content-Length nor Transfer-Encoding, as `curl -X POST` without `-d` sends it: HTTP/1.1
   * reads that as no body at all, where `Content-Length: 0` is a body of no bytes. The path goes as written,
   * where fetch resolves `..` and `%2e%2e` segments before sending. (fetch can send neither.)
   */
  unframed?: boolean;
}

export interface WireResponse {
  status: number;
  headers: Headers;
  body: unknown;
}

/** The target's credentials for the API a path belongs to. */
export function credentialHeaders(target: Target, path: string): Record<string, string> {
  if (path.startsWith('/client/') && target.client) {
    return { 'X-Client-Application-Id': target.client.appId, 'X-Client-Token': target.client.token, Origin: target.client.origin };
  }
  if (path.startsWith('/management/') && target.management) {
    return { 'X-Management-Id': target.management.id, 'X-Management-Token': target.management.token };
  }
  return { 'X-App-Id': target.credentials.appId, 'X-App-Token': target.credentials.appToken };
}

export async function wire(target: Target, method: string, path: string, request: WireRequest = {}): Promise<WireResponse> {
  if (request.unframed) return unframed(target, method, path, request.headers ?? {});
  const bytes = typeof request.body === 'string' ? new TextEncoder().encode(request.body) : request.body;
  const init: RequestInit & { duplex?: 'half' } = { method, headers: { ...credentialHeaders(target, path), ...request.headers } };
  if (bytes !== undefined && request.chunked) {
    init.body = new ReadableStream<Uint8Array>({
      start(controller) {
        if (bytes.length > 0) controller.enqueue(bytes);
        controller.close();
      },
    });
    init.duplex = 'half';
  } else if (bytes !== undefined) {
    init.body = bytes;
  }
  const response = await recordingFetch(`${target.baseUrl}${path}`, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: kept as text so an assertion shows it
  }
  return { status: response.status, headers: response.headers, body };
}

function unframed(target: Target, method: string, path: string, headers: Record<string, string>): Promise<WireResponse> {
  const url = `${target.baseUrl}${path}`;
  const { hostname, port, protocol } = new URL(target.baseUrl);
  if (protocol !== 'http:') throw new Error(`An unframed request needs an http target, not ${target.baseUrl}`);
  return new Promise((resolve, reject) => {
    const options = { hostname, port, path, method, headers: { ...credentialHeaders(target, path), ...headers } };
    const outgoing = httpRequest(options, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const status = incoming.statusCode ?? 0;
        // Counted like every fetch of the suite, so a 5xx fails the test even where it asserts nothing.
        seenStatuses.push({ method, url, status });
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON
        }
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
        resolve({ status, headers: responseHeaders, body });
      });
    });
    outgoing.on('error', reject);
    outgoing.removeHeader('content-length');
    outgoing.removeHeader('transfer-encoding');
    outgoing.end();
  });
}

/** JSON text of arrays nested `depth` deep around a value, built without recursion. */
export function nestedArrays(depth: number, inner = '1'): string {
  return `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
}

/** JSON text of objects nested `depth` deep (`{"a":{"a":…}}`), built without recursion. */
export function nestedObjects(depth: number, key = 'a', inner = '1'): string {
  return `${`{"${key}":`.repeat(depth)}${inner}${'}'.repeat(depth)}`;
}

/** Bytes that claim to be gzip and are not: a gzip header, then garbage. */
export const BROKEN_GZIP = new Uint8Array([...gzipSync('{}').subarray(0, 10), 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01]);
