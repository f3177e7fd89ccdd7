/**
 * The benchmark's data, built in-process through the domain use cases (much faster than over HTTP):
 * vouchers spread over campaigns, and customers. One unit of work per batch, as background generation does.
 */
import { createCampaign, type CampaignRecord } from '../server/domain/campaigns.js';
import type { Clock } from '../server/domain/clock.js';
import { upsertCustomer } from '../server/domain/customers.js';
import { generateCampaignVouchers } from '../server/domain/vouchers.js';
import type { Store } from '../server/store/store.js';

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

export async function buildFixture(store: Store, clock: Clock, projectId: string, size: FixtureSize): Promise<Fixture> {
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
