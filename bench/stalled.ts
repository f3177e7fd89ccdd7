/**
 * `make bench`, stalled clients: the built server (`dist/server/main.js`, memory store, default settings) while
 * BENCH_STALLED_CLIENTS (20 500) connections each hold a request mid-body, more than the process's descriptors
 * (20 000 here) could all keep. They are opened from several processes (bench/stalled-client.ts), since each
 * process has the same descriptor limit. Once they are all tried, a bystander makes BENCH_STALLED_TRIES (20)
 * requests one after the other, each on a new connection with 5 s to be answered. Printed: how many of the
 * attack's connections the server took and still holds, the bystander's answers and their median time. The
 * hardening suite (tests/hardening/process.test.ts) checks the same with 2 000 clients and a small cap; this is
 * the figure at full size. BENCH_STALLED_SEQUENCE=1 also prints when each of the bystander's requests went and
 * whether it was answered. Printed, never asserted.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replyOf } from './child-messages.js';

const here = dirname(fileURLToPath(import.meta.url));
const MAIN = join(here, '..', 'server', 'main.js');


/** One request on a connection of its own: its time in ms when answered 200 within 5 s, else what it got. */
function bystander(port: number): Promise<number | string> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/v1/vouchers?limit=1', agent: false, timeout: 5_000, headers: { 'x-app-id': 'demo-app-id', 'x-app-token': 'demo-app-token' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - started : `status ${res.statusCode}`));
      },
    );
    let connected = false;
    req.on('socket', (socket) => socket.once('connect', () => (connected = true)));
    req.on('timeout', () => (resolve(connected ? 'connected, no answer in 5 s' : 'not connected in 5 s'), req.destroy()));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

export async function stalledClients(total: number, tries: number): Promise<void> {
  console.log('');
  const server = spawn(process.execPath, [MAIN], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: '', DATA_DIR: '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const attackers: ChildProcess[] = [];
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let output = '';
      server.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const found = /server on http:\/\/localhost:(\d+)/.exec(output);
        if (found) resolve(Number(found[1]));
      });
      server.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
    });
    const processes = Math.ceil(total / 8_000);
    const started = performance.now();
    const held = await Promise.all(
      Array.from({ length: processes }, (_, index) => {
        const count = Math.min(Math.ceil(total / processes), total - index * Math.ceil(total / processes));
        const child = fork(join(here, 'stalled-client.js'), [String(port), String(count)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        attackers.push(child);
        return replyOf<{ open: number; failed: number }>(child, 'held');
      }),
    );
    const openedIn = performance.now() - started;
    const times: (number | string)[] = [];
    const sequence: string[] = [];
    for (let i = 0; i < tries; i++) {
      const at = ((performance.now() - started) / 1000).toFixed(1);
      const time = await bystander(port);
      times.push(time);
      sequence.push(`${at}s:${typeof time === 'number' ? 'ok' : 'missed'}`);
    }
    if (process.env.BENCH_STALLED_SEQUENCE) console.log(`  bystander: ${sequence.join(' ')}`);
    const stillOpen = (await Promise.all(attackers.map((child) => replyOf<{ open: number }>(child, 'count', 'count')))).reduce((sum, { open }) => sum + open, 0);
    const answered = times.filter((time): time is number => typeof time === 'number').sort((a, b) => a - b);
    const missed = new Map<string, number>();
    for (const time of times) if (typeof time === 'string') missed.set(time, (missed.get(time) ?? 0) + 1);
    const median = answered.length > 0 ? `${answered[Math.floor(answered.length / 2)]!.toFixed(1)} ms` : 'n/a';
    const took = held.reduce((sum, { open }) => sum + open, 0);
    const failed = held.reduce((sum, { failed }) => sum + failed, 0);
    console.log(`Stalled clients (built server, memory store, default limits): ${total} connections each holding a request mid-body, from ${processes} processes, tried in ${(openedIn / 1000).toFixed(1)} s`);
    const others = [...missed].map(([what, count]) => `${count} ${what}`).join(', ');
    console.log(`  open once all were tried: ${took} (${total - took - failed} closed by the server, ${failed} never connected); a bystander then got ${answered.length} of ${tries} answers (median ${median}${others ? `; ${others}` : ''}); the attack still held ${stillOpen} after them`);
  } finally {
    for (const child of attackers) child.send({ type: 'stop' });
    server.kill('SIGTERM');
  }
}
