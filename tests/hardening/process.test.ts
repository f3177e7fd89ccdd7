/**
 * The reference server's process, attacked at its edges: a port that is taken, a client that stalls mid-body
 * while the server is asked to stop, and a forged `Host` header. Needs `make build` first (make test does it).
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { packageRoot } from '../../server/paths.js';

const MAIN = join(packageRoot(), 'dist', 'server', 'main.js');
const started: ChildProcess[] = [];
const opened: (Server | Socket)[] = [];

afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const thing of opened.splice(0)) (thing as Socket).destroy?.() ?? (thing as Server).close();
});

interface Running {
  child: ChildProcess;
  output: () => string;
  port: () => Promise<number>;
  exit: Promise<{ code: number | null; ms: number }>;
}

function run(env: Record<string, string>): Running {
  const child = spawn(process.execPath, [MAIN], { env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let output = '';
  const waiting: (() => void)[] = [];
  const read = (chunk: Buffer) => {
    output += chunk.toString();
    for (const wake of waiting.splice(0)) wake();
  };
  child.stdout!.on('data', read);
  child.stderr!.on('data', read);
  const exit = new Promise<{ code: number | null; ms: number }>((resolve) => {
    let from = 0;
    child.on('spawn', () => (from = Date.now()));
    child.on('exit', (code) => resolve({ code, ms: Date.now() - from }));
  });
  const port = async () => {
    for (;;) {
      const found = /reference server on http:\/\/localhost:(\d+)/.exec(output);
      if (found) return Number(found[1]);
      if (child.exitCode !== null) throw new Error(`the server exited: ${output}`);
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };
  return { child, output: () => output, port, exit };
}

const DEMO = { 'X-App-Id': 'demo-app-id', 'X-App-Token': 'demo-app-token', 'Content-Type': 'application/json' };

/** Opens `count` connections that each send a request's headers and one byte of a 100-byte body, then hold. */
async function stallers(port: number, count: number): Promise<Socket[]> {
  const sockets: Socket[] = [];
  const settled: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    opened.push(socket);
    sockets.push(socket);
    // Each one is settled once it sent its start, or was refused.
    settled.push(
      new Promise((resolve) => {
        socket.once('connect', () => socket.write(`POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-App-Id: demo-app-id\r\nX-App-Token: demo-app-token\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`, resolve));
        socket.once('close', resolve);
      }),
    );
  }
  await Promise.all(settled);
  return sockets;
}

describe('reference server process', () => {
  test('when many clients stall mid-body, then a bystander is still answered, and a stalled client is cut off in seconds', async () => {
    // A small cap, so the test holds a few thousand connections rather than 20 000; the mechanism is the same.
    const server = run({ MAX_CONNECTIONS: '300', CONNECTION_EVICT_AFTER_MS: '1000', REQUEST_TIMEOUT_MS: '4000', HEADERS_TIMEOUT_MS: '2000' });
    const port = await server.port();
    const held = await stallers(port, 2000);
    // The last of them arrived a moment ago; once they have all been silent for the eviction delay, newcomers get in.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    let answered = 0;
    const tries = 20;
    for (let i = 0; i < tries; i++) {
      const response = await fetch(`http://127.0.0.1:${port}/v1/customers?limit=1`, { headers: DEMO, signal: AbortSignal.timeout(5000) }).catch(() => undefined);
      if (response?.status === 200) answered++;
    }
    const stillOpen = held.filter((socket) => !socket.destroyed).length;
    console.log(`bystander: ${answered} of ${tries} requests answered while 2000 stalled clients held (cap 300); ${stillOpen} of them still open`);
    expect(answered).toBe(tries);
    expect(stillOpen).toBeLessThanOrEqual(300);
    // A stalled body is cut once the request timeout passes (checked every second), not after five minutes.
    for (const socket of held) socket.destroy();
    const late = connect(port, '127.0.0.1');
    opened.push(late);
    late.on('error', () => undefined);
    const started = Date.now();
    // Cut: answered 408 (and closed), or closed.
    const cut = new Promise<number>((resolve) => {
      late.once('close', () => resolve(Date.now() - started));
      late.on('data', (chunk: Buffer) => chunk.toString().startsWith('HTTP/1.1 408') && resolve(Date.now() - started));
    });
    late.write(`POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-App-Id: demo-app-id\r\nX-App-Token: demo-app-token\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
    const ms = await Promise.race([cut, new Promise<number>((resolve) => setTimeout(() => resolve(Infinity), 15_000))]);
    console.log(`a stalled body was cut after ${ms} ms (request timeout 4000 ms)`);
    expect(ms).toBeLessThan(15_000);
    // A body declared larger than any operation takes is refused at once, before a byte of it is sent.
    const huge = connect(port, '127.0.0.1');
    opened.push(huge);
    huge.on('error', () => undefined);
    const answer = new Promise<string>((resolve) => huge.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    huge.write(`POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-App-Id: demo-app-id\r\nX-App-Token: demo-app-token\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\n\r\n`);
    const text = await Promise.race([answer, new Promise<string>((resolve) => setTimeout(() => resolve('no answer'), 3000))]);
    expect(text).toMatch(/^HTTP\/1\.1 413 [^]*Connection: close[^]*"key":"query_too_large"/i);
  }, 60_000);

  test('when a second server starts on the DATA_DIR a running one uses, then it exits 1 naming the holder, and the first keeps serving', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'data-dir-lock-'));
    try {
      const first = run({ DATA_DIR: dataDir });
      const port = await first.port();
      const second = run({ DATA_DIR: dataDir });
      const { code } = await second.exit;
      expect(code).toBe(1);
      expect(second.output()).toMatch(new RegExp(`DATA_DIR ${dataDir} is in use by process ${first.child.pid} on `));
      expect(second.output()).not.toMatch(/reference server on/);
      const made = await fetch(`http://127.0.0.1:${port}/v1/customers`, { method: 'POST', headers: DEMO, body: JSON.stringify({ source_id: 'kept-through-lock' }) });
      expect(made.status).toBe(200);
      // Killed outright, the first leaves its lock behind; the next server finds its holder gone and takes over.
      first.child.kill('SIGKILL');
      await first.exit;
      const third = run({ DATA_DIR: dataDir });
      const again = await third.port();
      const kept = await fetch(`http://127.0.0.1:${again}/v1/customers/kept-through-lock`, { headers: DEMO });
      expect(kept.status).toBe(200);
    } finally {
      for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  test('when its port is taken, then it says so and exits 1 without claiming to listen', async () => {
    const holder = createServer();
    opened.push(holder);
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const taken = (holder.address() as AddressInfo).port;
    const server = run({ PORT: String(taken) });
    const { code } = await server.exit;
    expect(code).toBe(1);
    expect(server.output()).toMatch(new RegExp(`Cannot listen on 127\\.0\\.0\\.1:${taken}: port ${taken} is already in use`));
    expect(server.output()).not.toMatch(/reference server on/);
  });

  test('when a client stalls mid-body and the server is told to stop, then it cuts the client off after the grace period and exits 0', async () => {
    const server = run({ SHUTDOWN_GRACE_MS: '1000' });
    const port = await server.port();
    const stalled = connect(port, '127.0.0.1');
    opened.push(stalled);
    await new Promise<void>((resolve) => stalled.once('connect', () => resolve()));
    const cut = new Promise<void>((resolve) => stalled.once('close', () => resolve()));
    stalled.on('error', () => undefined);
    // Headers promise 100 bytes; 10 come, then nothing.
    stalled.write(`POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-App-Id: demo-app-id\r\nX-App-Token: demo-app-token\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name": "`);
    // An idle keep-alive connection is closed at once, without waiting for the grace period.
    const idle = await fetch(`http://127.0.0.1:${port}/v1/customers?limit=1`, { headers: DEMO });
    expect(idle.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    server.child.kill('SIGTERM');
    const { code } = await server.exit;
    await cut;
    expect(code).toBe(0);
    expect(server.output()).toMatch(/SIGTERM: closing; requests in flight have 1000 ms/);
    expect(server.output()).toMatch(/stopped/);
    expect(server.output()).not.toMatch(/gave up waiting/);
  });

  test('when told to stop with a drain period, then it answers /readyz 503 while still serving new connections, then stops accepting and exits 0', async () => {
    const server = run({ SHUTDOWN_DRAIN_MS: '1500' });
    const port = await server.port();
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // A new connection (a balancer's probe, a request it has not yet moved) is still served.
    const probe = await fetch(`http://127.0.0.1:${port}/readyz`, { headers: { Connection: 'close' } });
    expect(probe.status).toBe(503);
    const served = await fetch(`http://127.0.0.1:${port}/v1/customers?limit=1`, { headers: { ...DEMO, Connection: 'close' } });
    expect(served.status).toBe(200);
    expect(server.child.exitCode).toBeNull();
    const { code } = await server.exit;
    expect(code).toBe(0);
    expect(server.output()).toMatch(/SIGTERM: not ready; still serving for 1500 ms/);
    await expect(fetch(`http://127.0.0.1:${port}/readyz`)).rejects.toThrow();
  });

  test('when a webhook delivery waits for its retry and the server is told to stop, then it gets its last attempt, is marked FAILED, and the server exits 0', async () => {
    let attempts = 0;
    const receiver = createHttpServer((_req, res) => {
      attempts += 1;
      res.statusCode = 500;
      res.end();
    });
    opened.push(receiver as unknown as Server);
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const receiverPort = (receiver.address() as AddressInfo).port;
    // The first retry is an hour away: only the shutdown can bring the second attempt.
    const server = run({ WEBHOOKS_ALLOW_HTTP: '1', WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOK_BACKOFF_MS: '3600000', SHUTDOWN_GRACE_MS: '500' });
    const port = await server.port();
    const management = { 'X-Management-Id': 'demo-management-id', 'X-Management-Token': 'demo-management-token', 'Content-Type': 'application/json' };
    const hook = await fetch(`http://127.0.0.1:${port}/management/v1/projects/proj_default/webhooks`, {
      method: 'POST',
      headers: management,
      body: JSON.stringify({ target_url: `http://127.0.0.1:${receiverPort}/hook`, events: ['customer.created'] }),
    });
    expect(hook.status).toBe(200);
    const customer = await fetch(`http://127.0.0.1:${port}/v1/customers`, { method: 'POST', headers: DEMO, body: JSON.stringify({ source_id: `stop-${Date.now()}` }) });
    expect(customer.status).toBe(200);
    for (let waited = 0; attempts < 1 && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(attempts).toBe(1);
    server.child.kill('SIGTERM');
    const { code } = await server.exit;
    expect(code).toBe(0);
    expect(attempts).toBe(2);
    expect(server.output()).toMatch(/webhook deliveries FAILED \(server stopped\): 1 to webhook/);
  });

  test('when a request names another host, then voucher asset URLs still use the configured public base URL', async () => {
    const server = run({ PUBLIC_BASE_URL: 'https://promo.example.test/api/' });
    const port = await server.port();
    const created = await fetch(`http://127.0.0.1:${port}/v1/vouchers`, {
      method: 'POST',
      headers: { ...DEMO, Host: 'attacker.example', 'X-Forwarded-Host': 'attacker.example' },
      body: JSON.stringify({ type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } }),
    });
    expect(created.status).toBe(200);
    const voucher = (await created.json()) as { assets: { qr: { url: string }; barcode: { url: string } } };
    for (const { url } of [voucher.assets.qr, voucher.assets.barcode]) {
      expect(url).toMatch(/^https:\/\/promo\.example\.test\/api\/assets\/(qr|barcode)\//);
      expect(url).not.toMatch(/attacker/);
    }
    // Without the variable, the address the server listens on.
    const plain = run({});
    const plainPort = await plain.port();
    const other = await fetch(`http://127.0.0.1:${plainPort}/v1/vouchers`, {
      method: 'POST',
      headers: { ...DEMO, Host: 'attacker.example' },
      body: JSON.stringify({ type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } }),
    });
    const plainVoucher = (await other.json()) as { assets: { qr: { url: string } } };
    expect(plainVoucher.assets.qr.url.startsWith(`http://localhost:${plainPort}/assets/qr/`)).toBe(true);
  });
});
