/**
 * `@voucherify/sdk` (server-side), unmodified, against the target: customer segments and promotion stacks. Each request is typed with the SDK's own
 * declarations and filled in completely (`Complete<T>`), and each response is read through the type the SDK
 * declares for it; what the server keeps is checked by reading it back and by validating.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import sdk from '@voucherify/sdk';
import type { SegmentsCreate, SegmentsCreateResponse, SegmentsGetResponse, SegmentsListResponse } from '@voucherify/sdk';
import type {
  PromotionsStacksCreateInCampaignRequestBody,
  PromotionsStacksCreateInCampaignResponseBody,
  PromotionsStacksGetResponseBody,
  PromotionsStacksListInCampaignResponseBody,
  PromotionsStacksListRequestQuery,
  PromotionsStacksListResponseBody,
  PromotionsStacksUpdateRequestBody,
  PromotionsStacksUpdateResponseBody,
} from '@voucherify/sdk/dist/types/PromotionsStacks.js';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { recording, voucherifySdkMethods } from './sdk-methods.js';
import { unique, useTarget } from './target.js';

/** Every field of a request type, however deep, made required (and never null). */
type Complete<T> = T extends (infer Item)[] ? Complete<Item>[] : T extends object ? { [Key in keyof T]-?: Complete<NonNullable<T[Key]>> } : T;

const { VoucherifyServerSide } = sdk;
/** The methods this file covers, by where integrators call them. */
const PLACES = ['segments.', 'promotions.stack.'];

const ctx = useTarget();
const calls = new Set<string>();

function serverSide() {
  const { appId, appToken } = ctx.target.credentials;
  return recording(VoucherifyServerSide({ applicationId: appId, secretKey: appToken, apiUrl: ctx.target.baseUrl }), calls);
}

/** What a refused SDK call throws, as plain fields. */
async function refusal(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    const { code, key } = error as { code: number; key: string };
    return { code, key };
  }
  throw new Error('the call succeeded');
}

async function customer(metadata: Record<string, unknown>) {
  const made = await ctx.client.POST('/v1/customers', { body: { source_id: unique('sdk-seg'), metadata } });
  expect(made.response.status).toBe(200);
  return made.data!;
}

describe('@voucherify/sdk: segments', () => {
  test('when segments are created, read, listed for a customer and deleted, then they hold the customers they should', async () => {
    const client = serverSide();
    const key = `sdk_${unique('k').slice(2)}`;
    const gold = await customer({ [key]: 'gold' });
    const guest = await customer({});

    // Every field the SDK's type declares: a static segment's `filter` is a field of the other kind of
    // segment, which the public API's body ignores for a static one.
    const staticBody = {
      name: unique('SDK guests'),
      type: 'static',
      customers: [guest.id!],
      filter: { junction: 'AND', [`metadata.${key}`]: { conditions: { $is: ['gold'] } } },
    } satisfies Complete<SegmentsCreate>;
    const guests: SegmentsCreateResponse = await client.segments.create(staticBody);
    expect(guests).toMatchObject({ id: expect.stringMatching(/^seg_/), name: staticBody.name, type: 'static', object: 'segment' });
    expect(guests.filter).toBeNull();

    const dynamicBody = {
      name: unique('SDK gold'),
      type: 'auto-update',
      customers: [guest.id!],
      filter: { junction: 'OR', [`metadata.${key}`]: { conditions: { $is: ['gold'] } } },
    } satisfies Complete<SegmentsCreate>;
    const golden: SegmentsCreateResponse = await client.segments.create(dynamicBody);
    expect(golden).toMatchObject({ type: 'auto-update', filter: { junction: 'or', [`metadata.${key}`]: { conditions: { $is: ['gold'] } } } });

    const read: SegmentsGetResponse = await client.segments.get(golden.id);
    expect(read).toEqual(golden);
    const ofGold: SegmentsListResponse = await client.segments.list(gold.id!);
    expect(ofGold).toEqual({ object: 'list', data_ref: 'data', data: [{ id: golden.id, name: dynamicBody.name, object: 'segment' }], total: 1 });
    const ofGuest: SegmentsListResponse = await client.segments.list(guest.source_id!);
    expect(ofGuest.data.map((segment) => segment.id)).toEqual([guests.id]);

    await client.segments.delete(guests.id);
    expect(await refusal(client.segments.get(guests.id))).toEqual({ code: 404, key: 'not_found' });
    expect((await client.segments.list(guest.id!)).total).toBe(0);
  });
});

describe('@voucherify/sdk: promotion stacks', () => {
  test('when a stack is created, read, listed, updated and deleted, then it is validated as one redeemable as it stands', async () => {
    const client = serverSide();
    const campaign = (await ctx.client.POST('/v1/campaigns', { body: { name: unique('SDK stack promo'), campaign_type: 'PROMOTION' } })).data!;
    const tier = async (name: string, discount: Record<string, unknown>) =>
      (await ctx.client.POST('/v1/promotions/{campaignId}/tiers', { params: { path: { campaignId: campaign.id! } }, body: { name, action: { discount } } as never })).data!;
    const amount = await tier('Five off', { type: 'AMOUNT', amount_off: 500 });
    const percent = await tier('Twenty percent', { type: 'PERCENT', percent_off: 20 });
    const category = (await ctx.client.POST('/v1/categories', { body: { name: unique('SDK stack category'), hierarchy: 3 } })).data!;

    const body = {
      name: 'Five and twenty',
      tiers: { ids: [amount.id!, percent.id!], hierarchy_mode: 'MANUAL' },
      category_id: category.id,
    } satisfies Complete<PromotionsStacksCreateInCampaignRequestBody>;
    const created: PromotionsStacksCreateInCampaignResponseBody = await client.promotions.stack.createInCampaign(campaign.id!, body);
    expect(created).toMatchObject({ id: expect.stringMatching(/^stack_/), name: body.name, tiers: body.tiers, campaign_id: campaign.id, category_id: category.id, object: 'promotion_stack' });
    expect(created.categories.map((entry) => entry.id)).toEqual([category.id]);

    const read: PromotionsStacksGetResponseBody = await client.promotions.stack.get(campaign.id!, created.id);
    expect(read).toEqual(created);
    const inCampaign: PromotionsStacksListInCampaignResponseBody = await client.promotions.stack.listInCampaign(campaign.id!);
    expect(inCampaign).toEqual({ object: 'list', data_ref: 'data', data: [created], total: 1 });
    const query = {
      limit: 100,
      page: 1,
      order: '-created_at',
      created_at: { after: new Date(Date.parse(created.created_at) - 1000).toISOString(), before: new Date(Date.now() + 60_000).toISOString() },
      updated_at: { after: '2000-01-01T00:00:00.000Z', before: new Date(Date.now() + 60_000).toISOString() },
    } satisfies Complete<PromotionsStacksListRequestQuery>;
    // Not updated yet, so the `updated_at` range leaves it out.
    const beforeUpdate: PromotionsStacksListResponseBody = await client.promotions.stack.list(query);
    expect(beforeUpdate.data.map((stack) => stack.id)).not.toContain(created.id);

    const validate = async () =>
      (await ctx.client.POST('/v1/validations', { body: { redeemables: [{ object: 'promotion_stack', id: created.id }], order: { amount: 10000 } } })).data!;
    expect((await validate()).order).toMatchObject({ discount_amount: 500 + 1900 });

    const change = { name: 'Twenty only', tiers: { ids: [percent.id!], hierarchy_mode: 'MANUAL' }, category_id: category.id } satisfies Complete<PromotionsStacksUpdateRequestBody>;
    const updated: PromotionsStacksUpdateResponseBody = await client.promotions.stack.update(campaign.id!, created.id, change);
    expect(updated).toMatchObject({ id: created.id, name: 'Twenty only', tiers: { ids: [percent.id] }, updated_at: expect.any(String) });
    expect((await validate()).order).toMatchObject({ discount_amount: 2000 });
    const afterUpdate: PromotionsStacksListResponseBody = await client.promotions.stack.list(query);
    expect(afterUpdate.data.find((stack) => stack.id === created.id)).toMatchObject({ name: 'Twenty only' });
    expect(afterUpdate.total).toBeGreaterThanOrEqual(1);

    await client.promotions.stack.delete(campaign.id!, created.id);
    expect(await refusal(client.promotions.stack.get(campaign.id!, created.id))).toEqual({ code: 404, key: 'not_found' });
    expect((await validate()).valid).toBe(false);
  });

  test('every method of segments and promotions.stack that reaches the contract was called', () => {
    const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8'));
    const expected = voucherifySdkMethods(contract)
      .filter((method) => method.operationId && PLACES.some((place) => method.name.startsWith(place)))
      .map((method) => method.name);
    expect(expected.length).toBeGreaterThanOrEqual(10);
    const called = [...calls];
    expect([...new Set(expected)].filter((name) => !called.includes(name)).sort()).toEqual([]);
  });
});
