/**
 * Background jobs under leases (domain/background-jobs.ts, server/job-leases.ts), on the memory store and on
 * PGlite: a generation writes its progress with each batch, stops when it lost its lease, and is resumed from that
 * progress by whichever instance claims it once its lease lapsed, ending with exactly the count asked for; an
 * import or an export cut off by a crash is ended with the reason; export files kept in the store read back whole.
 */
import { describe, expect, test } from '@jest/globals';
import { pipeline } from 'node:stream/promises';
import { startAsyncAction } from '../../server/domain/async-actions.js';
import { newJob } from '../../server/domain/background-jobs.js';
import { createCampaign } from '../../server/domain/campaigns.js';
import type { Clock } from '../../server/domain/clock.js';
import type { DomainContext } from '../../server/domain/context.js';
import { createExport } from '../../server/domain/exports/exports.js';
import { generateInBackground, scheduleGeneration } from '../../server/domain/generation.js';
import { SCHEMA, type DomainStore } from '../../server/domain/schema.js';
import { EXPORT_CHUNK_BYTES, StoreExportFiles } from '../../server/exports/files.js';
import { JobLeases } from '../../server/job-leases.js';
import { Jobs } from '../../server/jobs.js';
import { MemoryStore } from '../../server/store/memory.js';
import { generateCampaignVouchers } from '../../server/domain/vouchers.js';
import { openPgliteStore } from '../../server/store/sql/sql-store.js';

class SetClock implements Clock {
  constructor(public at = Date.UTC(2026, 10, 24, 12, 0, 0)) {}
  now(): Date {
    return new Date(this.at);
  }
}

const PROJECT = 'proj_jobs';
const LEASE_MS = 10_000;
/** Batches of a few vouchers: what is tested is how batches follow each other, not their size. */
const BATCH = 40;

const stores: [string, () => Promise<DomainStore>][] = [
  ['memory', async () => new MemoryStore(SCHEMA)],
  ['PGlite', () => openPgliteStore(SCHEMA)],
];

describe.each(stores)('background jobs on the %s store', (_name, open) => {
  async function setUp() {
    const store = await open();
    await store.createProject(PROJECT);
    const clock = new SetClock();
    const jobs = new Jobs();
    const unit = <R>(work: (ctx: DomainContext) => Promise<R>) =>
      store.transaction(PROJECT, (uow) => work({ uow, clock }));
    return { store, clock, jobs, unit };
  }

  /** A campaign and a generation job of `count` vouchers held by `owner`, `done` of them made already. */
  async function generationJob(setup: Awaited<ReturnType<typeof setUp>>, owner: string, count: number, done = 0) {
    return setup.unit(async (ctx) => {
      const campaign = await createCampaign(ctx, { name: `c-${owner}`, type: 'AUTO_UPDATE', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, code_config: { length: 12 } } } as never);
      const action = await startAsyncAction(ctx, 'CAMPAIGN.VOUCHERS_GENERATE', 'req');
      await scheduleGeneration(ctx, { owner, ms: LEASE_MS }, { campaignId: campaign.id, asyncActionId: action.id, count, input: {}, batch: BATCH });
      return { campaignId: campaign.id, actionId: action.id };
    });
  }

  const voucherCount = (setup: Awaited<ReturnType<typeof setUp>>, campaignId: string) => setup.unit(({ uow }) => uow.vouchers.countBy('campaign_id', campaignId));

  test('when a generation runs under its lease, then each batch writes its progress and the job ends with exactly the count', async () => {
    const setup = await setUp();
    const count = BATCH * 2 + 7;
    const { campaignId, actionId } = await generationJob(setup, 'me', count);
    await generateInBackground(setup.store, setup.clock, PROJECT, actionId, 'me');
    expect(await voucherCount(setup, campaignId)).toBe(count);
    const action = await setup.unit(({ uow }) => uow.async_actions.get(actionId));
    expect(action).toMatchObject({ status: 'DONE', progress: 100, result: { done_count: count } });
    expect(await setup.unit(({ uow }) => uow.background_jobs.get(actionId))).toBeUndefined();
    await setup.store.close();
  });

  test('when another instance holds the job, then a runner that lost its lease makes nothing', async () => {
    const setup = await setUp();
    const { campaignId, actionId } = await generationJob(setup, 'other', 800);
    await generateInBackground(setup.store, setup.clock, PROJECT, actionId, 'me');
    expect(await voucherCount(setup, campaignId)).toBe(0);
    expect(await setup.unit(({ uow }) => uow.background_jobs.get(actionId))).toMatchObject({ lease_owner: 'other', generation: { done: 0 } });
    await setup.store.close();
  });

  test('when the instance running a generation died, then once its lease lapsed another claims it and makes only the vouchers missing', async () => {
    const setup = await setUp();
    const count = BATCH * 3;
    const { campaignId, actionId } = await generationJob(setup, 'dead', count);
    // The dead instance's first batch committed: vouchers and progress together.
    await setup.unit(async (ctx) => {
      const job = (await ctx.uow.background_jobs.get(actionId))!;
      await generateCampaignVouchers(ctx, (await ctx.uow.campaigns.get(campaignId))!, {}, BATCH);
      await ctx.uow.background_jobs.update({ ...job, generation: { ...job.generation!, done: BATCH } });
    });
    const leases = new JobLeases(setup.store, setup.clock, setup.jobs, LEASE_MS);
    await leases.tick();
    await setup.jobs.idle();
    // Still within the dead instance's lease: nobody takes it.
    expect(await voucherCount(setup, campaignId)).toBe(BATCH);
    setup.clock.at += LEASE_MS + 1;
    await leases.tick();
    await setup.jobs.idle();
    expect(await voucherCount(setup, campaignId)).toBe(count);
    expect(await setup.unit(({ uow }) => uow.async_actions.get(actionId))).toMatchObject({ status: 'DONE', result: { done_count: count } });
    expect(await setup.unit(({ uow }) => uow.background_jobs.get(actionId))).toBeUndefined();
    await setup.store.close();
  });

  test('when an import or an export was cut off by a crash, then the claim ends it with the reason instead of leaving it in progress', async () => {
    const setup = await setUp();
    const { importId, exportId } = await setup.unit(async (ctx) => {
      const action = await startAsyncAction(ctx, 'CUSTOMERS.IMPORT_CSV', 'req');
      await newJob(ctx, { owner: 'dead', ms: LEASE_MS }, action.id, 'import');
      const exported = await createExport(ctx, { exported_object: 'voucher' });
      await newJob(ctx, { owner: 'dead', ms: LEASE_MS }, exported.id, 'export');
      await ctx.uow.exports.update({ ...exported, status: 'IN_PROGRESS' });
      return { importId: action.id, exportId: exported.id };
    });
    const files = new StoreExportFiles(setup.store, setup.clock);
    const output = await files.create(PROJECT, exportId);
    await pipeline(async function* () {
      yield Buffer.alloc(EXPORT_CHUNK_BYTES + 10, 'x');
    }, output.stream);
    setup.clock.at += LEASE_MS + 1;
    await new JobLeases(setup.store, setup.clock, setup.jobs, LEASE_MS).tick();
    expect(await setup.unit(({ uow }) => uow.async_actions.get(importId))).toMatchObject({ status: 'FAILED', result: { message: expect.stringMatching(/^Cut off/) } });
    expect(await setup.unit(({ uow }) => uow.exports.get(exportId))).toMatchObject({ status: 'ERROR', failure: expect.stringMatching(/^Cut off/) });
    expect(await files.open(PROJECT, exportId)).toBeUndefined();
    expect(await setup.unit(async ({ uow }) => (await uow.background_jobs.query({})).total)).toBe(0);
    await setup.store.close();
  });

  test('when an export file is kept in the store, then it reads back byte for byte, in pieces, and is gone once removed', async () => {
    const setup = await setUp();
    const files = new StoreExportFiles(setup.store, setup.clock);
    const output = await files.create(PROJECT, 'exp_file');
    // Text with multi-byte characters and U+0000, cut at arbitrary places.
    const text = Array.from({ length: 30_000 }, (_, i) => `${i},zażółć\u0000"${'é'.repeat(i % 7)}"\n`).join('');
    const bytes = Buffer.from(text);
    await pipeline(async function* () {
      for (let at = 0; at < bytes.length; at += 1001) yield bytes.subarray(at, at + 1001);
    }, output.stream);
    await output.commit();
    const pieces = await setup.unit(async ({ uow }) => (await uow.export_chunks.query({ index: { field: 'export_id', value: 'exp_file' } })).total);
    expect(pieces).toBe(Math.ceil(bytes.length / EXPORT_CHUNK_BYTES));
    expect(pieces).toBeGreaterThan(1);
    const read: Buffer[] = [];
    for await (const chunk of (await files.open(PROJECT, 'exp_file'))!) read.push(chunk as Buffer);
    expect(Buffer.concat(read).equals(bytes)).toBe(true);
    await files.remove(PROJECT, 'exp_file');
    expect(await files.open(PROJECT, 'exp_file')).toBeUndefined();
    await setup.store.close();
  });
});
