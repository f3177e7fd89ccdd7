/**
 * `make bench`, stalled clients: one of the processes that hold connections to the server (bench/stalled.ts
 * starts several, since one process may open fewer descriptors than the attack needs). Each connection sends a
 * request's headers declaring a 100-byte body, then one byte of it, and waits. Arguments: the server's port and
 * how many connections to open. Tells its parent `{type: 'held', open, failed}` once every connection was tried,
 * and answers `{type: 'count'}` with how many are still open.
 */
import { connect, type Socket } from 'node:net';

const port = Number(process.argv[2]);
const wanted = Number(process.argv[3]);
const AT_ONCE = 500;
const open = new Set<Socket>();
let failed = 0;

const REQUEST = 'POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-App-Id: demo-app-id\r\nX-App-Token: demo-app-token\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{';

function one(): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      open.add(socket);
      socket.write(REQUEST);
      resolve();
    });
    socket.once('close', () => {
      if (!open.delete(socket)) failed++;
      resolve();
    });
  });
}

async function main(): Promise<void> {
  for (let started = 0; started < wanted; started += AT_ONCE) {
    await Promise.all(Array.from({ length: Math.min(AT_ONCE, wanted - started) }, one));
  }
  process.send!({ type: 'held', open: open.size, failed });
}

process.on('message', (message: { type: string }) => {
  if (message.type === 'count') process.send!({ type: 'count', open: open.size });
  if (message.type === 'stop') {
    for (const socket of open) socket.destroy();
    process.exit(0);
  }
});

void main();
