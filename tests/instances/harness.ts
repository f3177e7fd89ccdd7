/**
 * Several reference server processes on one PostgreSQL database, as a team deploys them behind a load
 * balancer: each test gets a fresh database on the throwaway cluster `make test` starts (TEST_DATABASE_URL),
 * spawns the built server (`dist/server/main.js`) on it, and may put a round-robin balancer in front.
 * Needs `make build` first (make test does it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Pool } from 'undici';
import { packageRoot } from '../../server/paths.js';
import { freshDatabase } from '../support/databases.js';

export const MAIN = join(packageRoot(), 'dist', 'server', 'main.js');

/** Why the multi-instance tests cannot run here, or undefined when they can. */
export const NO_DATABASE = process.env.TEST_DATABASE_URL
  ? undefined
  : 'multi-instance cases skipped: TEST_DATABASE_URL is not set (make test starts a throwaway PostgreSQL cluster and sets it)';

export const KEYS = {
  appId: 'instances-app',
  appToken: 'instances-token',
  managementId: 'instances-management',
  managementToken: 'instances-management-token',
  clientAppId: 'instances-client',
  clientToken: 'instances-client-token',
};

export const SERVER_HEADERS = { 'X-App-Id': KEYS.appId, 'X-App-Token': KEYS.appToken, 'Content-Type': 'application/json' };

export interface Instance {
  readonly baseUrl: string;
  readonly output: () => string;
  /** Sends the signal and waits for the process to end; resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface Deployment {
  readonly databaseUrl: string;
  /** Starts one more server on the database. */
  start(env?: Record<string, string>, args?: string[]): Promise<Instance>;
  /** Stops every server still running and drops the database. */
  close(): Promise<void>;
}

export async function deployment(): Promise<Deployment> {
  const database = await freshDatabase(process.env.TEST_DATABASE_URL!);
  const running = new Set<ChildProcess>();
  return {
    databaseUrl: database.url,
    async start(env = {}, args = []) {
      const child = spawn(process.execPath, [MAIN, ...args], {
        env: {
          ...process.env,
          HOST: '127.0.0.1',
          PORT: '0',
          DATABASE_URL: database.url,
          APP_ID: KEYS.appId,
          APP_TOKEN: KEYS.appToken,
          MANAGEMENT_ID: KEYS.managementId,
          MANAGEMENT_TOKEN: KEYS.managementToken,
          CLIENT_APP_ID: KEYS.clientAppId,
          CLIENT_TOKEN: KEYS.clientToken,
          // The origin the suites' client-side calls come from (the default follows PORT, here 0).
          CLIENT_ORIGINS: 'http://localhost:3000',
          LOG_LEVEL: 'warn',
          // As behind a load balancer: absolute URLs in answers name the one address clients use.
          PUBLIC_BASE_URL: 'http://promotions.example.test',
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      running.add(child);
      let output = '';
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => (running.delete(child), resolve(code))));
      const listening = new Promise<number>((resolve, reject) => {
        const read = (chunk: Buffer) => {
          output += chunk.toString();
          const found = /reference server on http:\/\/localhost:(\d+)/.exec(output);
          if (found) resolve(Number(found[1]));
        };
        child.stdout!.on('data', read);
        child.stderr!.on('data', read);
        void exited.then(() => reject(new Error(`the server exited before listening:\n${output}`)));
      });
      const port = await listening;
      return {
        baseUrl: `http://127.0.0.1:${port}`,
        output: () => output,
        async stop(signal = 'SIGTERM') {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      };
    },
    async close() {
      await Promise.all(
        [...running].map((child) => {
          const gone = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGKILL');
          return gone;
        }),
      );
      await database.drop();
    },
  };
}

/** Hop-by-hop headers, which a proxy does not pass on. */
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'proxy-authorization', 'proxy-authenticate']);

function forwardable(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP.has(name.toLowerCase())) kept[name] = value;
  return kept;
}

export interface Balancer {
  readonly baseUrl: string;
  /** Requests sent to each upstream, in the order the upstreams were given. */
  readonly served: number[];
  /** Where requests go from now on; until given, the balancer answers 503. */
  route(upstreams: readonly string[]): void;
  close(): Promise<void>;
}

/**
 * A load balancer on loopback that sends each request to the next upstream in turn (strict round robin). It
 * listens before it has upstreams, so that the servers behind it can be told its address (PUBLIC_BASE_URL).
 */
export async function roundRobin(): Promise<Balancer> {
  let upstreams: readonly string[] = [];
  let pools: Pool[] = [];
  const served: number[] = [];
  let next = 0;
  const server: Server = createServer((req, res) => {
    if (pools.length === 0) {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('no upstream yet');
      return;
    }
    const index = next++ % pools.length;
    served[index]! += 1;
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    // The body is read whole first, so that a request whose write found the upstream's connection already
    // closed (EPIPE: the upstream read none of it) can go again, once, on a fresh connection. Any other failure,
    // which may come after the upstream read the request, is answered 502.
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = hasBody ? Buffer.concat(chunks) : null;
      const send = (again: boolean): void => {
        pools[index]!.request({ method: req.method as 'GET', path: req.url ?? '/', headers: forwardable(req.headers), body }).then(
          (answer) => {
            res.writeHead(answer.statusCode, forwardable(answer.headers));
            answer.body.pipe(res);
          },
          (error: Error & { code?: string }) => {
            process.stderr.write(`balancer: ${req.method} ${req.url} to ${upstreams[index]} failed: ${error.message}${again && error.code === 'EPIPE' ? ', sent again' : ''}\n`);
            if (again && error.code === 'EPIPE') return send(false);
            res.writeHead(502, { 'content-type': 'text/plain' });
            res.end(`upstream ${upstreams[index]} failed: ${error.message}`);
          },
        );
      };
      send(hasBody);
    });
  });
  // Clients close idle connections first (undici after 4 s): a connection the balancer closed just as a client
  // reused it would fail that request.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    route(given) {
      upstreams = given;
      // The servers close a connection idle for 5 s (KEEP_ALIVE_TIMEOUT_MS); the balancer stops reusing one after
      // 1 s, so that a loaded machine's late timers cannot hand a request to a connection being closed (a POST
      // on it fails, and would be answered 502).
      pools = given.map((origin) => new Pool(origin, { connections: 32, keepAliveTimeout: 1_000, keepAliveMaxTimeout: 1_000 }));
      served.splice(0, served.length, ...given.map(() => 0));
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await Promise.all(pools.map((pool) => pool.close()));
    },
  };
}
