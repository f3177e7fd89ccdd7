/**
 * Promotion stacks: fixed sets of a promotion campaign's tiers, managed per campaign and validated and
 * redeemed as one redeemable (`object: promotion_stack`).
 */
import { describe, expect, test } from '@jest/globals';
import { deletedCampaign } from './data-helpers.js';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

async function promotion() {
  const made = await ctx.client.POST('/v1/campaigns', { body: { name: unique('StackPromo'), campaign_type: 'PROMOTION' } });
  expect(made.response.status).toBe(200);
  return made.data!;
}

async function tier(campaignId: string, name: string, discount: Record<string, unknown>) {
  const made = await ctx.client.POST('/v1/promotions/{campaignId}/tiers', { params: { path: { campaignId } }, body: { name, action: { discount } } as never });
  expect(made.response.status).toBe(200);
  return made.data!;
}

/** A promotion with two tiers: 1000 off, then 10% of what is left. */
async function promotionWithTiers() {
  const campaign = await promotion();
  const amount = await tier(campaign.id!, 'Ten off', { type: 'AMOUNT', amount_off: 1000 });
  const percent = await tier(campaign.id!, 'Ten percent', { type: 'PERCENT', percent_off: 10 });
  return { campaign, amount, percent };
}

async function createStack(campaignId: string, body: Record<string, unknown>) {
  const made = await ctx.client.POST('/v1/promotions/{campaignId}/stacks', { params: { path: { campaignId } }, body: body as never });
  expect(made.response.status).toBe(200);
  return made.data!;
}

describe('promotion stacks', () => {
  test('when a stack is created, then it reads back, lists in its campaign and among all stacks, updates and deletes', async () => {
    const { campaign, amount, percent } = await promotionWithTiers();
    const category = (await ctx.client.POST('/v1/categories', { body: { name: unique('StackCat'), hierarchy: 2 } })).data!;
    const stack = await createStack(campaign.name!, { name: 'Weekend bundle', tiers: { ids: [amount.id, percent.id], hierarchy_mode: 'MANUAL' }, category_id: category.id });
    expect(stack).toEqual({
      id: expect.stringMatching(/^stack_/),
      name: 'Weekend bundle',
      tiers: { ids: [amount.id, percent.id], hierarchy_mode: 'MANUAL' },
      created_at: expect.any(String),
      campaign_id: campaign.id,
      object: 'promotion_stack',
      category_id: category.id,
      categories: [expect.objectContaining({ id: category.id, name: category.name, object: 'category' })],
    });
    const path = { params: { path: { campaignId: campaign.id!, stackId: stack.id } } };
    expect((await ctx.client.GET('/v1/promotions/{campaignId}/stacks/{stackId}', path)).data).toEqual(stack);
    const inCampaign = await ctx.client.GET('/v1/promotions/{campaignId}/stacks', { params: { path: { campaignId: campaign.id! } } });
    expect(inCampaign.data).toEqual({ object: 'list', data_ref: 'data', data: [stack], total: 1 });

    const updated = await ctx.client.PUT('/v1/promotions/{campaignId}/stacks/{stackId}', { ...path, body: { name: 'Only percent', tiers: { ids: [percent.id!] }, category_id: null } });
    expect(updated.response.status).toBe(200);
    expect(updated.data).toEqual({ ...stack, name: 'Only percent', tiers: { ids: [percent.id], hierarchy_mode: 'MANUAL' }, category_id: null, categories: [], updated_at: expect.any(String) });

    const deleted = await ctx.client.DELETE('/v1/promotions/{campaignId}/stacks/{stackId}', path);
    expect(deleted.response.status).toBe(204);
    expectError(failed(await ctx.client.GET('/v1/promotions/{campaignId}/stacks/{stackId}', path)), 404, 'not_found');
    expect((await ctx.client.GET('/v1/promotions/{campaignId}/stacks', { params: { path: { campaignId: campaign.id! } } })).data!.total).toBe(0);
  });

  test('when a stack is created without hierarchy_mode, then it shows none, also after an update, until one sends it', async () => {
    const { campaign, amount, percent } = await promotionWithTiers();
    const stack = await createStack(campaign.id!, { name: 'Unordered', tiers: { ids: [amount.id, percent.id] } });
    expect(stack.tiers).toEqual({ ids: [amount.id, percent.id] });
    const path = { params: { path: { campaignId: campaign.id!, stackId: stack.id } } };
    expect((await ctx.client.GET('/v1/promotions/{campaignId}/stacks/{stackId}', path)).data?.tiers).toEqual({ ids: [amount.id, percent.id] });
    const renamed = await ctx.client.PUT('/v1/promotions/{campaignId}/stacks/{stackId}', { ...path, body: { name: 'Still unordered', tiers: { ids: [percent.id!] } } });
    expect(renamed.data?.tiers).toEqual({ ids: [percent.id] });
    const ordered = await ctx.client.PUT('/v1/promotions/{campaignId}/stacks/{stackId}', { ...path, body: { tiers: { ids: [percent.id!], hierarchy_mode: 'MANUAL' } } });
    expect(ordered.data?.tiers).toEqual({ ids: [percent.id], hierarchy_mode: 'MANUAL' });
  });

  test('when every stack is listed, then pages, order and date filters apply and total counts them all', async () => {
    const { campaign, amount, percent } = await promotionWithTiers();
    const names = ['B stack', 'A stack', 'C stack'];
    const made = [];
    for (const name of names) made.push(await createStack(campaign.id!, { name, tiers: { ids: [amount.id, percent.id] } }));
    const since = made[0]!.created_at;
    const all = await ctx.client.GET('/v1/promotions/stacks', { params: { query: { limit: 100, order: 'name', created_at: { after: new Date(Date.parse(since) - 1).toISOString() } } } });
    expect(all.response.status).toBe(200);
    const ours = all.data!.data.filter((stack) => stack.campaign_id === campaign.id);
    expect(ours.map((stack) => stack.name)).toEqual(['A stack', 'B stack', 'C stack']);
    const page = await ctx.client.GET('/v1/promotions/stacks', { params: { query: { limit: 1, page: 2 } } });
    expect(page.data!.data).toHaveLength(1);
    expect(page.data!.total).toBeGreaterThanOrEqual(3);
    const none = await ctx.client.GET('/v1/promotions/stacks', { params: { query: { updated_at: { after: '2000-01-01' } } } });
    expect(none.data!.data.filter((stack) => stack.campaign_id === campaign.id)).toEqual([]);
  });

  test('when a stack names a tier of another campaign, an unknown tier, one tier twice, or a campaign that is not a promotion, then it is refused', async () => {
    const { campaign, amount } = await promotionWithTiers();
    const other = await promotionWithTiers();
    const create = (campaignId: string, body: Record<string, unknown>) => raw(ctx.target, 'POST', `/v1/promotions/${encodeURIComponent(campaignId)}/stacks`, { body: JSON.stringify(body) });
    expectError(await create(campaign.id!, { name: 'Mixed', tiers: { ids: [amount.id, other.amount.id] } }), 400, 'invalid_promotion_stack');
    expectError(await create(campaign.id!, { name: 'Unknown', tiers: { ids: ['promo_missing'] } }), 404, 'not_found');
    expectError(await create(campaign.id!, { name: 'Twice', tiers: { ids: [amount.id, amount.id] } }), 400, 'invalid_promotion_stack');
    expectError(await create(campaign.id!, { name: 'Empty', tiers: { ids: [] } }), 400, 'invalid_payload');
    expectError(await create(campaign.id!, { tiers: { ids: [amount.id] } }), 400, 'invalid_payload');
    expectError(await create(campaign.id!, { name: 'No category', tiers: { ids: [amount.id] }, category_id: 'cat_missing' }), 404, 'not_found');
    const coupons = (await ctx.client.POST('/v1/campaigns', { body: { name: unique('Coupons'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } } as never })).data!;
    expectError(await create(coupons.id!, { name: 'Not a promotion', tiers: { ids: [amount.id] } }), 400, 'invalid_campaign_params');
    expectError(await create('camp_missing', { name: 'Nowhere', tiers: { ids: [amount.id] } }), 404, 'not_found');
    // A stack is found only under its own campaign.
    const stack = await createStack(campaign.id!, { name: 'Mine', tiers: { ids: [amount.id] } });
    expectError(failed(await ctx.client.GET('/v1/promotions/{campaignId}/stacks/{stackId}', { params: { path: { campaignId: other.campaign.id!, stackId: stack.id } } })), 404, 'not_found');
    expect((await ctx.client.GET('/v1/promotions/{campaignId}/stacks', { params: { path: { campaignId: campaign.id! } } })).data!.total).toBe(1);
  });

  test('when a stack is validated and redeemed, then its tiers apply together as one redeemable and each tier is redeemed', async () => {
    const { campaign, amount, percent } = await promotionWithTiers();
    const stack = await createStack(campaign.id!, { name: 'Both', tiers: { ids: [amount.id, percent.id] } });
    const body = { redeemables: [{ object: 'promotion_stack' as const, id: stack.id }], order: { amount: 10000 }, options: { expand: ['redeemable' as const] } };
    const validation = await ctx.client.POST('/v1/validations', { body });
    expect(validation.response.status).toBe(200);
    expect(validation.data!.valid).toBe(true);
    expect(validation.data!.redeemables).toEqual([
      expect.objectContaining({ id: stack.id, object: 'promotion_stack', status: 'APPLICABLE', result: { discount_amount: 1900 }, campaign_id: campaign.id, name: 'Both', campaign_name: campaign.name }),
    ]);
    expect(validation.data!.order).toMatchObject({ amount: 10000, discount_amount: 1900, total_amount: 8100 });

    const redeemed = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'promotion_stack', id: stack.id }], order: { amount: 10000 } } });
    expect(redeemed.response.status).toBe(200);
    expect(redeemed.data!.redemptions!.map((r) => [r.related_object_type, r.related_object_id, r.amount])).toEqual([
      ['promotion_tier', amount.id, 1000],
      ['promotion_tier', percent.id, 900],
    ]);
    expect(redeemed.data!.parent_redemption).toMatchObject({ amount: 1900 });
    const counted = await ctx.client.GET('/v1/promotions/tiers/{promotionTierId}', { params: { path: { promotionTierId: percent.id! } } });
    expect(counted.data!.summary).toMatchObject({ redemptions: { total_redeemed: 1 }, orders: { total_discount_amount: 900 } });
  });

  test('when one tier of a stack does not apply, then the whole stack is inapplicable; a deleted tier leaves it, a deleted stack is not found', async () => {
    const { campaign, amount, percent } = await promotionWithTiers();
    const stack = await createStack(campaign.id!, { name: 'Both', tiers: { ids: [amount.id, percent.id] } });
    const validate = async () => (await ctx.client.POST('/v1/validations', { body: { redeemables: [{ object: 'promotion_stack', id: stack.id }], order: { amount: 10000 } } })).data!;
    await ctx.client.POST('/v1/promotions/tiers/{promotionTierId}/disable', { params: { path: { promotionTierId: percent.id! } } });
    const disabled = await validate();
    expect(disabled.valid).toBe(false);
    expect(disabled.inapplicable_redeemables).toEqual([
      expect.objectContaining({ id: stack.id, object: 'promotion_stack', status: 'INAPPLICABLE', result: { error: expect.objectContaining({ key: 'promotion_inactive' }) } }),
    ]);
    expect(disabled.order).toMatchObject({ discount_amount: 0 });
    const refused = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'promotion_stack', id: stack.id }], order: { amount: 10000 } } });
    expectError(failed(refused), 400, 'promotion_inactive');

    const deleted = await ctx.client.DELETE('/v1/promotions/tiers/{promotionTierId}', { params: { path: { promotionTierId: percent.id! } } });
    expect(deleted.response.status).toBe(204);
    const path = { params: { path: { campaignId: campaign.id!, stackId: stack.id } } };
    expect((await ctx.client.GET('/v1/promotions/{campaignId}/stacks/{stackId}', path)).data!.tiers.ids).toEqual([amount.id]);
    expect((await validate()).redeemables).toEqual([expect.objectContaining({ status: 'APPLICABLE', result: { discount_amount: 1000 } })]);

    await ctx.client.DELETE('/v1/promotions/{campaignId}/stacks/{stackId}', path);
    expect((await validate()).inapplicable_redeemables).toEqual([expect.objectContaining({ id: stack.id, result: { error: expect.objectContaining({ key: 'resource_not_found' }) } })]);
  });

  test('when a campaign is deleted, then its stacks go with it', async () => {
    const { campaign, amount } = await promotionWithTiers();
    const stack = await createStack(campaign.id!, { name: 'Gone', tiers: { ids: [amount.id] } });
    await deletedCampaign(ctx.client, campaign.id!, true);
    const all = await ctx.client.GET('/v1/promotions/stacks', { params: { query: { limit: 100 } } });
    expect(all.data!.data.map((row) => row.id)).not.toContain(stack.id);
  });
});
