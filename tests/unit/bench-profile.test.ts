/** The bench's profile summary: self time of each sample, grouped by the part of the stack that spent it. */
import { describe, expect, test } from '@jest/globals';
import { ownCodeLine, ownWorkBudget, partOf, roundSpread, summarise } from '../../bench/profile.js';

const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0, columnNumber: 0, scriptId: '0' });

describe('the bench profile summary', () => {
  test('frames are put in the part of the stack their code lives in, and idle time in none', () => {
    expect(partOf(frame('validate', 'file:///app/node_modules/express-openapi-validator/dist/x.js'))).toMatch(/request validation/);
    expect(partOf(frame('handle', 'file:///app/node_modules/router/index.js'))).toMatch(/Express/);
    expect(partOf(frame('transaction', 'file:///app/dist/server/store/memory.js'))).toMatch(/^store/);
    expect(partOf(frame('presentVoucher', 'file:///app/dist/server/domain/vouchers.js'))).toBe('domain');
    expect(partOf(frame('stringify'))).toMatch(/JSON/);
    expect(partOf(frame('(garbage collector)'))).toBe('garbage collection');
    expect(partOf(frame('(idle)'))).toBeUndefined();
  });

  test('each sample counts the time until the next one, and shares are of the busy time only', () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(idle)') },
        { id: 2, callFrame: frame('stringify') },
        { id: 3, callFrame: frame('(garbage collector)') },
      ],
      startTime: 0,
      endTime: 100,
      // idle 50 µs, then stringify 30 µs, then GC 10 µs (the last sample's time is unknown and not counted)
      samples: [1, 2, 3, 2],
      timeDeltas: [0, 50, 30, 10],
    };
    const summary = summarise(profile);
    expect(summary.busyMs).toBeCloseTo(0.04);
    expect(summary.parts).toEqual([
      { part: 'JSON text (JSON.stringify, JSON.parse)', share: 0.75 },
      { part: 'garbage collection', share: 0.25 },
    ]);
    expect(summary.functions[0]).toEqual({ name: 'stringify', share: 0.75 });
  });

  test('a short route\'s own work is its CPU less the rest of the way, against what the target leaves it', () => {
    // 400 µs against bare 140: at 70% the route may take 200 µs, of which the rest of the way takes 120.
    expect(ownWorkBudget(400, 140, 120, 0.7)).toBe('its own work: 280 µs of CPU a request (400 µs less 120 µs); at 70% of bare Express (140 µs) it could take 80 µs: 3.5 times what the target allows');
    expect(ownWorkBudget(190, 140, 120, 0.7)).toMatch(/it could take 80 µs: within that/);
    expect(ownWorkBudget(400, 70, 120, 0.7)).toMatch(/it could take 0 µs: the rest of the way alone costs more/);
    expect(ownWorkBudget(400, undefined, 120, 0.7)).toBeUndefined();
  });

  test("a route's rounds are shown as their lowest and highest ratio, and straddle the target only when it lies between them", () => {
    // The lowest and highest wherever they fall, not the first and last.
    expect(roundSpread([0.72, 0.61, 0.77, 0.66], 0.7)).toEqual({ cell: '61–77%', straddles: true });
    expect(roundSpread([0.8, 0.74, 0.91], 0.7)).toEqual({ cell: '74–91%', straddles: false });
    expect(roundSpread([0.5, 0.69], 0.7)).toEqual({ cell: '50–69%', straddles: false });
    // A round exactly at the target meets it.
    expect(roundSpread([0.65, 0.7], 0.7).straddles).toBe(true);
    expect(roundSpread([], 0.7)).toEqual({ cell: '', straddles: false });
  });

  test('time in own code is counted by the part of it nearest the sample, and nothing above the HTTP layer counts', () => {
    const app = 'file:///app/dist/server';
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)'), children: [2, 6, 9, 12] },
        // A promise turn resumes the domain, which asks the store, which looks a row up (a builtin).
        { id: 2, callFrame: frame('runMicrotasks'), children: [3] },
        { id: 3, callFrame: frame('redeem', `${app}/domain/redemptions.js`), children: [4] },
        { id: 4, callFrame: frame('insert', `${app}/store/memory.js`), children: [5] },
        { id: 5, callFrame: frame('set') },
        // The HTTP layer sends an answer (not own work), and in doing so starts the next request's handler (own work).
        { id: 6, callFrame: frame('sendJson', `${app}/http/routes.js`), children: [7, 8] },
        { id: 7, callFrame: frame('writev') },
        { id: 8, callFrame: frame('handler', `${app}/handlers/redemptions.js`), children: [10] },
        { id: 10, callFrame: frame('token', `${app}/assets.js`), children: [11] },
        { id: 11, callFrame: frame('oneShotDigest') },
        { id: 9, callFrame: frame('(garbage collector)') },
        // Own code that calls into the HTTP layer: what the HTTP layer does is not own work.
        { id: 12, callFrame: frame('inProject', `${app}/handlers/unit-of-work.js`), children: [13] },
        { id: 13, callFrame: frame('keyOf', `${app}/http/auth.js`), children: [14] },
        { id: 14, callFrame: frame('get') },
      ],
      startTime: 0,
      endTime: 100,
      // set 40 µs, redeem 10, writev 30, oneShotDigest 20, GC 50, the HTTP layer's get 60 (the last sample's time is not counted)
      samples: [5, 3, 7, 11, 9, 14, 5],
      timeDeltas: [0, 40, 10, 30, 20, 50, 60],
    };
    const summary = summarise(profile);
    expect(summary.ownCode).toEqual([
      { part: 'store (units of work, locks, indexes)', us: 40 },
      { part: 'asset URLs (signed tokens)', us: 20 },
      { part: 'domain', us: 10 },
    ]);
    expect(ownCodeLine(summary, 2)).toMatch(/saw 35 µs of CPU a request: store \(units of work, locks, indexes\) 20; asset URLs \(signed tokens\) 10; domain 5$/);
    expect(ownCodeLine(summary, 0)).toBeUndefined();
    expect(ownCodeLine({ ...summary, ownCode: [] }, 10)).toBeUndefined();
  });
});
