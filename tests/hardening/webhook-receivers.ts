/**
 * Receivers that misbehave at the TCP level, each in a process of its own so that the sockets they hold are
 * not counted with the server's (or the test's): one that never accepts, one that accepts and never answers,
 * and an address where nothing listens.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export interface Misbehaving {
  url: string;
  close(): void;
}

/**
 * A socket in listen state whose process never calls accept: its event loop is blocked for good right after
 * `listen`, so once the tiny backlog is full the kernel drops every further SYN and a connect can only time out.
 */
const NEVER_ACCEPTS = `
const server = require('node:net').createServer();
server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
  process.stdout.write(server.address().port + '\\n', () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0));
});`;

/** Accepts every connection, then neither reads the request nor answers it. */
const NEVER_ANSWERS = `
const held = [];
const server = require('node:net').createServer({ pauseOnConnect: true }, (socket) => held.push(socket));
server.listen({ port: 0, host: '127.0.0.1' }, () => process.stdout.write(server.address().port + '\\n'));`;

function child(script: string): Promise<Misbehaving> {
  const process_ = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    process_.once('error', reject);
    process_.once('exit', (code) => reject(new Error(`receiver exited early (${code})`)));
    process_.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const port = /^(\d+)\n/.exec(out)?.[1];
      if (port) {
        process_.removeAllListeners('exit');
        resolve({ url: `http://127.0.0.1:${port}/hooks`, close: () => stop(process_) });
      }
    });
  });
}

function stop(process_: ChildProcess): void {
  if (process_.exitCode === null && process_.pid !== undefined) process_.kill('SIGKILL');
}

export const neverAccepts = () => child(NEVER_ACCEPTS);
export const neverAnswers = () => child(NEVER_ANSWERS);

/** An address on loopback where nothing listens: every connect is refused at once. */
export async function refuses(): Promise<Misbehaving> {
  const port = await freePort();
  return { url: `http://127.0.0.1:${port}/hooks`, close: () => undefined };
}

/** A port free right now (listened on, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
