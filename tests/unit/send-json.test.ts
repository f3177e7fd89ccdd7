/**
 * A handler's JSON answer is written directly (http/routes.ts, `sendJson`), not through Express's `json` and
 * `send`: the client must get the same status, headers and bytes as `res.json` sends on an app set up as the
 * server's (no ETag), and a response whose `json` was replaced (the response validator's) still goes through it.
 */
import { describe, expect, test } from '@jest/globals';
import express, { type Request, type Response } from 'express';
import { request } from 'node:http';
import { sendJson } from '../../server/http/routes.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(port: number, method: string, path: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const { date: _date, ...headers } = res.headers;
        resolve({ status: res.statusCode ?? 0, headers, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const BODIES: Record<string, unknown> = {
  object: { id: 'v_1', code: 'SUMMER', nested: { list: [1, 2.5, null, true] } },
  array: [{ a: 1 }, { b: 'two' }],
  unicode: { name: 'Zoë — 東京 🎟️', note: 'quote " and \\ backslash' },
  string: 'just text',
  number: 42,
  nothing: null,
  large: { pad: 'x'.repeat(5000), more: 'é'.repeat(600) },
};

function appWith(status: number) {
  const app = express();
  app.set('etag', false);
  app.disable('x-powered-by');
  const body = (req: Request) => BODIES[String(req.params.name)];
  app.all('/ours/:name', (req, res) => {
    res.status(status);
    sendJson(req, res, body(req));
  });
  app.all('/express/:name', (req, res) => {
    res.status(status).json(body(req));
  });
  // As the response validator does: `json` replaced on this response, to check the body before it goes.
  app.all('/replaced/:name', (req, res) => {
    const json = res.json.bind(res);
    res.json = ((value: unknown) => json({ checked: value })) as Response['json'];
    res.status(status);
    sendJson(req, res, body(req));
  });
  return app;
}

async function serve(app: express.Express, run: (port: number) => Promise<void>): Promise<void> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    await run((server.address() as { port: number }).port);
  } finally {
    server.close();
  }
}

describe('a handler\'s JSON answer', () => {
  test('when the body is any JSON value, then status, headers and bytes are those res.json sends, for GET and HEAD', async () => {
    for (const status of [200, 201, 404]) {
      await serve(appWith(status), async (port) => {
        for (const name of Object.keys(BODIES)) {
          for (const method of ['GET', 'POST', 'HEAD']) {
            const ours = await get(port, method, `/ours/${name}`);
            const theirs = await get(port, method, `/express/${name}`);
            expect({ name, method, ...ours }).toEqual({ name, method, ...theirs });
            expect(ours.status).toBe(status);
            if (method !== 'HEAD') expect(JSON.parse(ours.body)).toEqual(BODIES[name]);
          }
        }
      });
    }
  });

  test('when the status takes no body, then it is sent as res.json sends it: without one', async () => {
    for (const status of [204, 205]) {
      await serve(appWith(status), async (port) => {
        const ours = await get(port, 'GET', '/ours/object');
        expect(ours).toEqual(await get(port, 'GET', '/express/object'));
        expect(ours.body).toBe('');
      });
    }
  });

  test('when the response\'s json was replaced, then the body goes through the replacement', async () => {
    await serve(appWith(200), async (port) => {
      const answered = await get(port, 'GET', '/replaced/array');
      expect(JSON.parse(answered.body)).toEqual({ checked: BODIES.array });
    });
  });
});
