/**
 * Each project's fair share of the event loop (http/project-slice.ts): a project's requests run at once
 * until it has been busy for its slice; then its next ones wait, in order, for a later turn, while other
 * projects' requests go first; a request whose client left while it waited is not run.
 */
import { afterEach, beforeEach, describe, expect, jest, test } from '@jest/globals';
import { EventEmitter } from 'node:events';
import type { RequestHandler } from 'express';
import { perProjectSlice } from '../../server/http/project-slice.js';

const SLICE_MS = 5;
let now = 0;

interface Exchange {
  req: EventEmitter & { destroyed: boolean };
  res: EventEmitter & { destroyed: boolean; writableEnded: boolean; locals: Record<string, unknown>; end(): void };
  ran: boolean;
}

/** Sends one request of the project through the slice; `ran` says whether it was passed on. */
function send(slice: RequestHandler, projectId: string): Exchange {
  const req = Object.assign(new EventEmitter(), { destroyed: false });
  const res = Object.assign(new EventEmitter(), {
    destroyed: false,
    writableEnded: false,
    locals: { context: { projectId } },
    end(this: { writableEnded: boolean }) {
      this.writableEnded = true;
    },
  });
  const exchange: Exchange = { req, res, ran: false };
  slice(req as never, res as never, () => {
    exchange.ran = true;
  });
  return exchange;
}

const laterTurn = () => new Promise((resolve) => setImmediate(resolve));

/** A slice whose project `proj_a` has used it up: one request that ran past it, then ended (or only closed). */
function usedUp(finish: 'end' | 'close' = 'end'): RequestHandler {
  const slice = perProjectSlice(SLICE_MS);
  const first = send(slice, 'proj_a');
  now = SLICE_MS + 1;
  if (finish === 'end') first.res.end();
  else first.res.emit('close');
  return slice;
}

describe('a project\'s slice of the event loop', () => {
  beforeEach(() => {
    now = 0;
    jest.spyOn(performance, 'now').mockImplementation(() => now);
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  test('when a project is within its slice, then each of its requests runs at once', () => {
    const slice = perProjectSlice(SLICE_MS);
    for (let i = 0; i < 3; i++) {
      const exchange = send(slice, 'proj_a');
      expect(exchange.ran).toBe(true);
      now += 1;
      exchange.res.end();
    }
  });

  test('when a project has used its slice, then its next requests wait for a later turn, in order, and another project\'s run meanwhile', async () => {
    const slice = usedUp();
    const second = send(slice, 'proj_a');
    const third = send(slice, 'proj_a');
    const other = send(slice, 'proj_b');
    expect([second.ran, third.ran, other.ran]).toEqual([false, false, true]);
    await laterTurn();
    // The later turn starts the first waiting request; the next goes when it is done, within the new slice.
    expect([second.ran, third.ran]).toEqual([true, false]);
    second.res.end();
    expect(third.ran).toBe(true);
  });

  test('when a request started from the queue is still running a turn later (its body never came), then the next waiting one goes', async () => {
    const slice = usedUp();
    const stalled = send(slice, 'proj_a');
    const bystander = send(slice, 'proj_a');
    await laterTurn();
    expect([stalled.ran, bystander.ran]).toEqual([true, false]);
    // Neither ends nor closes: a turn later the next waiting request goes all the same.
    await laterTurn();
    expect(bystander.ran).toBe(true);
  });

  test('when a response closes without ending, then it counts as done too', async () => {
    const slice = usedUp('close');
    const next = send(slice, 'proj_a');
    expect(next.ran).toBe(false);
    await laterTurn();
    expect(next.ran).toBe(true);
  });

  test('when the client of a waiting request goes away, then that request is not run and the next waiting one is', async () => {
    const slice = usedUp();
    const gone = send(slice, 'proj_a');
    const staying = send(slice, 'proj_a');
    gone.req.destroyed = true;
    await laterTurn();
    expect([gone.ran, staying.ran]).toEqual([false, true]);
  });

  test('when a request names no project, or the slice is 0, then it runs at once', () => {
    const slice = perProjectSlice(SLICE_MS);
    const anonymous = send(slice, '');
    expect(anonymous.ran).toBe(true);
    const unlimited = perProjectSlice(0);
    const first = send(unlimited, 'proj_a');
    now = 100;
    first.res.end();
    expect(send(unlimited, 'proj_a').ran).toBe(true);
  });
});
