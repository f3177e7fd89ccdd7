/**
 * The benchmark's data, built in-process through the domain use cases (much faster than over HTTP):
 * vouchers spread over campaigns, and customers. One unit of work per batch, as background generation does.
 */
import { createCampaign, type CampaignRecord } from '../server/domain/campaigns.js';
import type { Clock } from '../server/domain/clock.js';
import { upsertCustomer } from '../server/domain/customers.js';
import { generateCampaignVouchers } from '../server/domain/vouchers.js';
import { AssetSigner } from '../server/assets.js';
import { handlers } from '../server/handlers/index.js';
import { Jobs } from '../server/jobs.js';
import { SCHEMA, type DomainSchema, type DomainStore } from '../server/domain/schema.js';
import { configFromEnv } from '../server/config.js';
import { MemoryStore } from '../server/store/memory.js';

/** The memory store as a server opens it with the default settings (rows not frozen: FREEZE_ROWS off). */
export function productionMemoryStore(): MemoryStore<DomainSchema> {
  const { storage } = configFromEnv({});
  return new MemoryStore(SCHEMA, { freezeRows: storage.kind === 'memory' && storage.freezeRows });
}

export interface FixtureSize {
  vouchers: number;
  campaigns: number;
  customers: number;
}

export interface Fixture {
  campaigns: CampaignRecord[];
  /** Every code: validations use one, redemptions spend them one by one. */
  codes: string[];
}

const BATCH = 5000;

export async function buildFixture(store: DomainStore, clock: Clock, projectId: string, size: FixtureSize): Promise<Fixture> {
  const campaigns: CampaignRecord[] = [];
  for (let i = 0; i < size.campaigns; i++) {
    campaigns.push(
      await store.transaction(projectId, (uow) =>
        createCampaign(
          { uow, clock },
          {
            name: `Bench campaign ${i}`,
            campaign_type: 'DISCOUNT_COUPONS',
            voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 }, code_config: { length: 10 } },
          } as never,
        ),
      ),
    );
  }
  const codes: string[] = [];
  const perCampaign = Math.ceil(size.vouchers / size.campaigns);
  let made = 0;
  for (const campaign of campaigns) {
    let inCampaign = 0;
    while (inCampaign < perCampaign && made < size.vouchers) {
      const batch = Math.min(BATCH, perCampaign - inCampaign, size.vouchers - made);
      const records = await store.transaction(projectId, (uow) => generateCampaignVouchers({ uow, clock }, campaign, {}, batch));
      codes.push(...records.map((record) => record.code));
      inCampaign += batch;
      made += batch;
    }
  }
  for (let i = 0; i < size.customers; i += 1000) {
    await store.transaction(projectId, async (uow) => {
      for (let j = i; j < Math.min(size.customers, i + 1000); j++) {
        await upsertCustomer({ uow, clock }, { source_id: `bench-customer-${j}`, name: `Customer ${j}`, email: `customer${j}@example.com` });
      }
    });
  }
  return { campaigns, codes };
}

/**
 * A loyalty program whose members are the fixture's customers, with an earning rule that gives pending
 * points for paid orders, and one paid order per member: `members` members with pending points. Built
 * through the operation handlers, so it takes exactly the path a request would.
 */
export async function buildLoyalty(store: DomainStore, clock: Clock, projectId: string, members: number): Promise<{ programId: string; firstMember: string }> {
  const services = { store, clock, jobs: new Jobs(), assets: new AssetSigner(), publicBaseUrl: () => 'http://localhost' };
  const context = { requestId: 'bench', projectId, apiKey: { name: 'bench', appId: 'bench' } };
  const call = async (operationId: string, input: { path?: Record<string, string>; body?: unknown }) => {
    const handler = handlers[operationId as keyof typeof handlers] as unknown as (input: object) => Promise<{ status: number; body: unknown }>;
    const result = await handler({ path: {}, query: {}, ...input, context, services });
    if (result.status >= 300) throw new Error(`${operationId} answered ${result.status}: ${JSON.stringify(result.body)}`);
    return result.body as { id: string; code: string };
  };
  const program = await call('create-loyalty-program', {
    body: { name: 'Bench club', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } },
  });
  await call('create-earning-rule', {
    path: { campaignId: program.id },
    body: [
      {
        event: 'order.paid',
        loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 1000, points: 10 } } },
        source: { banner: '10 points for every 10.00' },
        pending_points: { period_type: 'DAY', period_value: 30 },
      },
    ],
  });
  let firstMember = '';
  for (let i = 0; i < members; i++) {
    const customer = { source_id: `bench-customer-${i}` };
    const card = await call('add-member', { path: { campaignId: program.id }, body: { customer } });
    if (i === 0) firstMember = card.code;
    await call('create-order', { body: { status: 'PAID', amount: 12_000, customer } });
  }
  return { programId: program.id, firstMember };
}
