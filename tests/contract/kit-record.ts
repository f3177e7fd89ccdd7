/**
 * When the contract kit runs the suite (CONTRACT_KIT_RECORD names a directory), every exchange and every
 * skipped check is appended there, one JSON line each, tagged with the test that made it. The kit joins
 * these with the test results into its per-operation report. Outside the kit this does nothing.
 */
import { expect } from '@jest/globals';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

export type KitRecord =
  | {
      kind: 'exchange';
      file: string;
      test: string;
      method: string;
      url: string;
      status: number;
      operationId?: string;
      violations: string[];
      /** For `compare` (CONTRACT_KIT_BODIES set): the exchange's place in its test, in the order requests were sent. */
      seq?: number;
      /** For `compare`: when the request was sent and its response came (epoch ms), and its body as text. */
      sent?: number;
      at?: number;
      body?: string;
    }
  | {
      kind: 'skip';
      file: string;
      test: string;
      reason: string;
      operationIds: string[];
      /** The title of a describe block or test skipped as it was declared, before anything ran. */
      scope?: string;
      /** The scenario ran its first part; only the rest was left out. */
      part?: boolean;
    };

type Unplaced<T> = T extends unknown ? Omit<T, 'file' | 'test'> : never;

/** Requests sent so far by each test of this file (Jest loads this module afresh for every test file). */
const sent = new Map<string, number>();

/**
 * The place of the request about to be sent in its test, counted when it is sent rather than when its answer
 * comes, so that requests a scenario sends together keep the order it sent them in.
 */
export function nextSeq(): number {
  const test = expect.getState().currentTestName ?? '(setup)';
  const seq = sent.get(test) ?? 0;
  sent.set(test, seq + 1);
  return seq;
}

/** Whether the kit asked for bodies too (its `compare` command pairs the exchanges of two runs). */
export const recordsBodies = (): boolean => Boolean(process.env.CONTRACT_KIT_RECORD && process.env.CONTRACT_KIT_BODIES);

export function record(entry: Unplaced<KitRecord>): void {
  const dir = process.env.CONTRACT_KIT_RECORD;
  if (!dir) return;
  const state = expect.getState();
  const line = { ...entry, file: state.testPath ?? '', test: state.currentTestName ?? '(setup)' };
  appendFileSync(join(dir, `${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
}
