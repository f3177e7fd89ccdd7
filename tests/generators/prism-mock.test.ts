/**
 * Prism's mock server, as a team would start it on the bundled contract (`prism mock generated/openapi.json`),
 * must answer every list operation called without a filter with a 200: Prism validates each request against
 * the contract first, so a query parameter declared in a way Prism reads as always present (a deepObject
 * `filters` whose inner field it then finds missing) turns every plain list call into a false 400.
 */
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { BUNDLED_CONTRACT, packageRoot } from '../../server/paths.js';
import { listOperations, sampleValue } from './contract-walk.js';

jest.setTimeout(180_000);

const PRISM = join(packageRoot(), 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const state = {} as { prism: ChildProcess; baseUrl: string; log: string[] };

beforeAll(async () => {
  const port = await freePort();
  const started = Date.now();
  state.log = [];
  state.prism = spawn(process.execPath, [PRISM, 'mock', '--host', '127.0.0.1', '--port', String(port), BUNDLED_CONTRACT], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  state.baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${state.log.slice(-20).join('')}`)), 150_000);
    const read = (chunk: Buffer): void => {
      const text = chunk.toString();
      state.log.push(text);
      if (/is listening on/.test(text)) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${port}`);
      }
    };
    state.prism.stdout?.on('data', read);
    state.prism.stderr?.on('data', read);
    state.prism.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Prism exited with ${String(code)}:\n${state.log.slice(-20).join('')}`));
    });
  });
  console.log(`prism mock: listening after ${((Date.now() - started) / 1000).toFixed(1)} s`);
}, 160_000);

afterAll(async () => {
  if (state.prism && state.prism.exitCode === null) {
    const exited = new Promise((resolve) => state.prism.once('exit', resolve));
    state.prism.kill('SIGTERM');
    await exited;
  }
});

test('the contract declares list operations for the mock to answer', () => {
  const operations = listOperations().map((operation) => operation.operationId);
  expect(operations).toEqual(expect.arrayContaining(['list-vouchers', 'list-locations', 'list-customers', 'list-campaigns']));
});

test('Prism mock answers every list operation, called without a filter, with a 200', async () => {
  const failures: string[] = [];
  const operations = listOperations();
  for (const operation of operations) {
    const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const parameter = operation.parameters.find((p) => p.in === 'path' && p.name === name);
      return encodeURIComponent(parameter ? sampleValue(parameter) : 'sample');
    });
    const query = new URLSearchParams();
    const headers: Record<string, string> = { accept: 'application/json', ...operation.credentials };
    // Only what the operation requires is sent: no filter, no paging.
    for (const parameter of operation.parameters.filter((p) => p.required && p.in !== 'path')) {
      if (parameter.in === 'query') query.set(parameter.name, sampleValue(parameter));
      if (parameter.in === 'header') headers[parameter.name] = sampleValue(parameter);
    }
    const url = `${state.baseUrl}${path}${query.size ? `?${query}` : ''}`;
    const response = await fetch(url, { headers });
    const body = await response.text();
    // Prism names the request's violations in this header; the body is only the contract's example error.
    const violations = response.headers.get('sl-violations') ?? body.slice(0, 300);
    if (response.status !== 200) failures.push(`${operation.operationId} GET ${path}: ${response.status} ${violations}`);
  }
  console.log(`prism mock: ${operations.length} list operations called, ${failures.length} not answered with 200`);
  expect(failures).toEqual([]);
});
