/**
 * The app's server makes requests and responses already carrying the app's prototypes (http/stable-shapes.ts),
 * so Express's per-request `Object.setPrototypeOf` changes nothing; everything Express gives them still works,
 * and `app.listen` behaves as Express 5's.
 */
import { describe, expect, test } from '@jest/globals';
import express from 'express';
import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withStableShapes } from '../../server/http/stable-shapes.js';

function listening(server: Server): Promise<void> {
  return new Promise((resolve) => server.once('listening', resolve));
}

describe('requests and responses of one shape', () => {
  test('when the app\'s server takes a request, then it arrives with the app\'s prototypes and Express\'s methods work on it', async () => {
    const app = express();
    withStableShapes(app);
    app.set('etag', false);
    app.get('/items/:id', (req, res) => {
      res.status(201).set('X-Seen', req.get('x-asked') ?? 'none').json({ id: req.params.id, query: req.query, app: req.app === app && res.app === app });
    });
    const server = app.listen(0, '127.0.0.1');
    const prototypes: boolean[] = [];
    // Emitted before the app runs: what Express finds before it sets the prototypes.
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      prototypes.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response);
      prototypes.push(req instanceof IncomingMessage && res instanceof ServerResponse);
    });
    await listening(server);
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/items/7?tag=a`, { headers: { 'x-asked': 'yes' } });
      expect(response.status).toBe(201);
      expect(response.headers.get('x-seen')).toBe('yes');
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await response.json()).toEqual({ id: '7', query: { tag: 'a' }, app: true });
      expect(prototypes).toEqual([true, true]);
    } finally {
      server.close();
    }
  });

  test('when listen is given a callback, then it is called once: when listening, or with the error when the port is taken', async () => {
    const first = express();
    withStableShapes(first);
    const calls: unknown[][] = [];
    const server = first.listen(0, '127.0.0.1', (...args: unknown[]) => calls.push(args));
    await listening(server);
    expect(calls).toEqual([[]]);
    const second = express();
    withStableShapes(second);
    const failed = await new Promise<unknown[]>((resolve) => {
      const clash = second.listen((server.address() as AddressInfo).port, '127.0.0.1', (...args: unknown[]) => resolve(args));
      clash.on('error', () => undefined);
    });
    expect((failed[0] as NodeJS.ErrnoException).code).toBe('EADDRINUSE');
    server.close();
  });
});
