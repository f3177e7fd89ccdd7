/**
 * The reference server's process, as `make serve` and the README start it (the built entry point): a fixture
 * file is loaded at start, and a malformed one stops the start with a message naming the bad entry.
 * Needs `make build` first (make test does it).
 */
import { afterAll, describe, expect, test } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../server/paths.js';

const MAIN = join(packageRoot(), 'dist', 'server', 'main.js');

// Every fixture file this suite writes, removed when it ends.
const scratch = mkdtempSync(join(tmpdir(), 'start-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Starts the server with a fixture file; resolves when it exits or once it says it listens (then stops it). */
function start(fixtures: unknown): Promise<{ code: number | null; output: string }> {
  const file = join(mkdtempSync(join(scratch, 'run-')), 'fixtures.json');
  writeFileSync(file, typeof fixtures === 'string' ? fixtures : JSON.stringify(fixtures));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, '--fixtures', file], { env: { ...process.env, PORT: '0', HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('reference server on')) child.kill('SIGTERM');
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

const circle = { type: 'circle', format: 'distance', distance: { center: 'geo:52.2,21.0', radius: '2km' } };

describe('reference server start', () => {
  test('when the fixture file is good, then its objects are loaded and the server listens', async () => {
    const { output } = await start({ locations: [{ name: 'Centre', shape: circle }], customers: [{ source_id: 'c-1' }] });
    expect(output).toMatch(/Loaded 2 object\(s\) from .*fixtures\.json/);
    expect(output).toMatch(/reference server on/);
  });

  test.each([
    ['an entry breaking the contract', { customers: [{ source_id: 'ok' }, { email: 'not-an-email' }] }, /fixtures\.json: customers\[1\]\/email must match format "email"/],
    ['an entry the domain refuses', { skus: [{ product_id: 'prod_missing', sku: 'S' }] }, /fixtures\.json: skus\[0\]: Cannot find product with id prod_missing/],
    ['an open polygon', { locations: [{ name: 'Open', shape: { type: 'polygon', format: 'geojson', geojson: { type: 'Polygon', coordinates: [[[21, 52], [21.1, 52], [21.1, 52.1], [21, 52.2]]] } } }] }, /locations\[0\]: .*is not closed/],
    ['a file that is not JSON', '{ "customers": [', /fixtures\.json: not valid JSON/],
  ])('when the fixture file has %s, then the start fails with exit 1 and names it', async (_name, fixtures, message) => {
    const { code, output } = await start(fixtures);
    expect(code).toBe(1);
    expect(output).toMatch(message);
    expect(output).not.toMatch(/reference server on/);
  });
});
