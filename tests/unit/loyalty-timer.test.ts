/**
 * The loyalty timer on several instances: a project's settling is claimed, so two instances never settle one
 * project at the same time, and a lone instance settles every project. On the memory store and PGlite (two
 * timers in one process), and on PostgreSQL with two store instances when TEST_DATABASE_URL is set.
 */
import { afterAll, describe, expect, test } from '@jest/globals';
import { ManualClock } from '../../server/domain/clock.js';
import { SCHEMA, type DomainStore } from '../../server/domain/schema.js';
import { settleAllProjects } from '../../server/loyalty-timer.js';
import { MemoryStore } from '../../server/store/memory.js';
import { openPgliteStore, openPostgresStore } from '../../server/store/sql/sql-store.js';
import { withTransaction } from '../../server/store/store.js';
import { freshDatabase } from './store/factories.js';

interface Instances {
  name: string;
  open(): Promise<[DomainStore, DomainStore]>;
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const instances: Instances[] = [
  {
    name: 'memory (two timers on one store)',
    async open() {
      const store = new MemoryStore(SCHEMA);
      return [store, store];
    },
  },
  {
    name: 'PGlite (two timers on one store)',
    async open() {
      const store = await openPgliteStore(SCHEMA);
      cleanups.push(() => store.close());
      return [store, store];
    },
  },
];
const url = process.env.TEST_DATABASE_URL;
if (url) {
  instances.push({
    name: 'PostgreSQL (two store instances)',
    async open() {
      const database = await freshDatabase(url);
      const a = await openPostgresStore(SCHEMA, database.url);
      const b = await openPostgresStore(SCHEMA, database.url);
      cleanups.push(async () => {
        await a.close();
        await b.close();
        await database.drop();
      });
      return [a, b];
    },
  });
} else console.log('PostgreSQL loyalty timer cases skipped: TEST_DATABASE_URL is not set (make test starts a throwaway cluster and sets it).');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(instances)('$name', ({ open }) => {
  test('when two instances settle every project at once, then no project is ever settled by both at the same time, and each is settled', async () => {
    const [a, b] = await open();
    const projects = ['p1', 'p2', 'p3', 'p4'];
    for (const project of projects) await a.createProject(project);
    const running = new Set<string>();
    let overlaps = 0;
    const settledIn: string[] = [];
    // Each settling takes a while, so that two settling one project at once would show.
    const watched = (store: DomainStore): DomainStore =>
      withTransaction(store, async (run, projectId, work) => {
        if (running.has(projectId)) overlaps++;
        running.add(projectId);
        try {
          await sleep(30);
          const result = await run(projectId, work);
          settledIn.push(projectId);
          return result;
        } finally {
          running.delete(projectId);
        }
      });
    const only = (store: DomainStore): DomainStore => ({ ...withTransaction(store, (run, projectId, work) => run(projectId, work)), projectIds: async () => projects });
    const clock = new ManualClock(new Date('2026-11-24T12:00:00.000Z'));
    const [first, second] = await Promise.all([settleAllProjects(only(watched(a)), clock), settleAllProjects(only(watched(b)), clock)]);
    console.log(`two instances settling 4 projects at once: one settled ${first.settled} and skipped ${first.skipped}, the other settled ${second.settled} and skipped ${second.skipped}`);
    expect(overlaps).toBe(0);
    expect(first.settled + first.skipped).toBe(4);
    expect(new Set(settledIn)).toEqual(new Set(projects));
    expect(first.skipped + second.skipped).toBeGreaterThan(0);
    // Alone, an instance settles every project.
    expect(await settleAllProjects(only(b), clock)).toEqual({ settled: 4, skipped: 0 });
  });
});
