/**
 * When the contract kit runs the suite (CONTRACT_KIT_RECORD names a directory), every exchange and every
 * skipped check is appended there, one JSON line each, tagged with the test that made it. The kit joins
 * these with the test results into its per-operation report. Outside the kit this does nothing.
 */
import { expect } from '@jest/globals';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

export type KitRecord =
  | { kind: 'exchange'; file: string; test: string; method: string; url: string; status: number; operationId?: string; violations: string[] }
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

export function record(entry: Unplaced<KitRecord>): void {
  const dir = process.env.CONTRACT_KIT_RECORD;
  if (!dir) return;
  const state = expect.getState();
  const line = { ...entry, file: state.testPath ?? '', test: state.currentTestName ?? '(setup)' };
  appendFileSync(join(dir, `${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
}
