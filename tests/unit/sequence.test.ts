/** Middlewares run as one: in order, and leaving for Express's error handling as separate layers would. */
import { describe, expect, test } from '@jest/globals';
import express, { type RequestHandler } from 'express';
import { sequence } from '../../server/http/sequence.js';

async function answer(handlers: RequestHandler[]): Promise<{ status: number; text: string }> {
  const app = express();
  app.use(sequence(handlers));
  app.get('/', (_req, res) => {
    res.json(res.locals.trail ?? []);
  });
  app.use(((error, _req, res, _next) => {
    res.status(418).send(`error: ${(error as Error).message ?? String(error)}`);
  }) as express.ErrorRequestHandler);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const { port } = server.address() as { port: number };
    const response = await fetch(`http://127.0.0.1:${port}/`);
    return { status: response.status, text: await response.text() };
  } finally {
    server.close();
  }
}

const step =
  (name: string): RequestHandler =>
  (_req, res, next) => {
    res.locals.trail = [...((res.locals.trail as string[] | undefined) ?? []), name];
    next();
  };

describe('a sequence of middlewares', () => {
  test('each runs in order, then the request goes on to the next layer', async () => {
    expect(await answer([step('a'), step('b'), step('c')])).toEqual({ status: 200, text: '["a","b","c"]' });
  });

  test('next(error), a throw and a rejected promise each skip the rest and reach the error handler', async () => {
    const failing: RequestHandler[] = [
      (_req, _res, next) => next(new Error('passed')),
      () => {
        throw new Error('thrown');
      },
      async () => {
        throw new Error('rejected');
      },
    ];
    for (const fail of failing) {
      const { status, text } = await answer([step('a'), fail, step('never')]);
      expect(status).toBe(418);
      expect(text).toMatch(/^error: (passed|thrown|rejected)$/);
    }
  });

  test('a middleware that answers ends the request there', async () => {
    expect(await answer([step('a'), (_req, res) => void res.status(204).end(), step('never')])).toEqual({ status: 204, text: '' });
  });

  test('an error-handling middleware is refused, since it cannot run in a sequence', () => {
    const handler: express.ErrorRequestHandler = (_error, _req, _res, next) => next();
    expect(() => sequence([handler as unknown as RequestHandler])).toThrow(/error-handling/);
  });
});
