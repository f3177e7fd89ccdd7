/**
 * What the server allows a connection, so that slow or stalled clients cannot take it down.
 *
 * Node's defaults let a client that sent its headers and one byte of a body hold its connection for five
 * minutes (`requestTimeout` 300 s, checked every 30 s), and accept connections until the process runs out of
 * descriptors: 20 500 such clients filled the 20 000 a process had, and every other request failed. Here:
 *
 * - the headers must arrive within `headersTimeoutMs` and the whole request within `requestTimeoutMs`, checked
 *   every second; an idle kept-alive connection is closed after `keepAliveTimeoutMs`;
 * - at most `maxConnections` connections are open at once, which leaves descriptors for the server's own work
 *   (its database, webhook deliveries, export files). When a new connection finds them all open, the one that
 *   has been silent longest gives way to it if it has been silent for `evictAfterMs` (a stalled or idle
 *   connection, not one that is sending or being answered); otherwise the new one is refused. So clients that
 *   hold connections without sending cannot keep a newcomer out.
 *
 * A public deployment still belongs behind a reverse proxy or load balancer, which absorbs slow clients before
 * they reach the process (see the README).
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  /** How long a connection must have been silent before a newcomer may take its place at the limit. */
  evictAfterMs: number;
}

/** The process's limit on open descriptors (Linux), or undefined where it cannot be read. */
export function descriptorLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | undefined {
  try {
    const soft = /^Max open files\s+(\d+|unlimited)/m.exec(read())?.[1];
    return soft === undefined || soft === 'unlimited' ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

/**
 * The default cap: the descriptors the process may open, less a quarter (at most 1 024) kept for its own work;
 * 4 096 where the limit cannot be read.
 */
export function defaultMaxConnections(limit: number | undefined): number {
  if (limit === undefined) return 4096;
  return Math.max(16, limit - Math.min(1024, Math.ceil(limit / 4)));
}

export const DEFAULT_CONNECTION_LIMITS: Omit<ConnectionLimits, 'maxConnections'> = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  evictAfterMs: 2_000,
};

/** The options of `http.createServer` that carry the timeouts (the interval at which Node checks them included). */
export function serverOptions(limits: ConnectionLimits): { headersTimeout: number; requestTimeout: number; keepAliveTimeout: number; connectionsCheckingInterval: number } {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
  };
}

/**
 * Caps the server's open connections as described above. The connections are kept in the order they were
 * last heard from (a socket moves to the end whenever it sends or is written to), so the one silent longest
 * is the first. Returns a function that says how many are open and how many were refused or let go.
 */
export function capConnections(server: Server, limits: Pick<ConnectionLimits, 'maxConnections' | 'evictAfterMs'>, now: () => number = Date.now): () => { open: number; refused: number; evicted: number } {
  const heard = new Map<Socket, number>();
  let refused = 0;
  let evicted = 0;
  const touch = (socket: Socket) => {
    heard.delete(socket);
    heard.set(socket, now());
  };
  server.on('connection', (socket: Socket) => {
    if (heard.size >= limits.maxConnections) {
      const [quietest, since] = heard.entries().next().value ?? [];
      if (quietest && since !== undefined && now() - since >= limits.evictAfterMs) {
        evicted++;
        heard.delete(quietest);
        quietest.destroy();
      } else {
        refused++;
        socket.destroy();
        return;
      }
    }
    touch(socket);
    socket.on('data', () => touch(socket));
    // Writes of an answer count as activity too: a client being answered is not silent.
    const write = socket.write;
    socket.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
      touch(socket);
      return write.apply(this, args);
    } as Socket['write'];
    socket.once('close', () => heard.delete(socket));
  });
  return () => ({ open: heard.size, refused, evicted });
}
