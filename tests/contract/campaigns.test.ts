import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { deletedCampaign } from './data-helpers.js';
import { known } from './known.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

const discountTemplate = (pattern = 'C-#####') => ({
  type: 'DISCOUNT_VOUCHER' as const,
  discount: { type: 'PERCENT' as const, percent_off: 10 },
  redemption: { quantity: 2 },
  code_config: { pattern, charset: 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789' },
});

async function campaign(body: Record<string, unknown> = {}) {
  const result = await ctx.client.POST('/v1/campaigns', {
    body: { name: unique('Campaign'), campaign_type: 'DISCOUNT_COUPONS', voucher: discountTemplate(), ...body } as never,
  });
  expect(result.response.status).toBe(200);
  return known(result.data, 'id', 'name');
}

async function vouchersOf(campaignId: string) {
  const result = await ctx.client.GET('/v1/vouchers', { params: { query: { campaign_id: campaignId, limit: 100 } } });
  // The contract leaves the envelope's fields optional (as the API does); this server always sends them.
  return { total: result.data!.total!, vouchers: result.data!.vouchers!.map((voucher) => ({ ...voucher, code: voucher.code! })) };
}

async function summary(campaignId: string, query: { start_date?: string; end_date?: string } = {}) {
  const result = await ctx.client.GET('/v1/campaigns/{campaignId}/summary', { params: { path: { campaignId }, query } });
  expect(result.response.status).toBe(200);
  return result.data!;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('create-campaign', () => {
  test('when created with vouchers_count, then that many distinct codes follow the pattern and statuses are DONE', async () => {
    const made = await campaign({ vouchers_count: 25 });
    expect(made).toMatchObject({
      id: expect.stringMatching(/^camp_/),
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'AUTO_UPDATE',
      vouchers_count: 25,
      active: true,
      creation_status: 'DONE',
      vouchers_generation_status: 'DONE',
      voucher: { type: 'DISCOUNT_VOUCHER', redemption: { quantity: 2 }, is_referral_code: false },
      object: 'campaign',
    });
    const list = await vouchersOf(made.id);
    expect(list.total).toBe(25);
    const codes = list.vouchers.map((v) => v.code);
    expect(new Set(codes).size).toBe(25);
    for (const voucher of list.vouchers) {
      expect(voucher.code).toMatch(/^C-[A-HJ-NP-Z2-9]{5}$/);
      expect(voucher).toMatchObject({ campaign: made.name, campaign_id: made.id, type: 'DISCOUNT_VOUCHER', redemption: { quantity: 2, redeemed_quantity: 0 } });
    }
  });

  test('when more than 1000 codes are asked for, then generation runs in the background until DONE', async () => {
    const made = await campaign({ vouchers_count: 1500, voucher: discountTemplate('BG-########') });
    expect(made.vouchers_generation_status).toBe('IN_PROGRESS');
    expect(made.creation_status).toBe('IN_PROGRESS');
    let current: { vouchers_generation_status?: string } = made;
    // Polled for up to a minute: on PostgreSQL behind a balancer on a loaded machine, the background batch can
    // take several seconds; the answer, not the wait, is what is checked.
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && current.vouchers_generation_status === 'IN_PROGRESS') {
      await pause(50);
      current = (await ctx.client.GET('/v1/campaigns/{campaignId}', { params: { path: { campaignId: made.id } } })).data!;
    }
    expect(current).toMatchObject({ vouchers_count: 1500, vouchers_generation_status: 'DONE', creation_status: 'DONE' });
    expect((await summary(made.id)).vouchers_created).toBe(1500);
  }, 90_000);

  test('when the code config cannot make enough distinct codes, then 400 invalid_code_config and no campaign', async () => {
    const name = unique('TooSmall');
    const result = await ctx.client.POST('/v1/campaigns', {
      body: { name, campaign_type: 'DISCOUNT_COUPONS', voucher: { ...discountTemplate('X#'), code_config: { pattern: 'X#', charset: 'AB' } }, vouchers_count: 3 },
    });
    expectError(failed(result), 400, 'invalid_code_config');
    expectError(failed(await ctx.client.GET('/v1/campaigns/{campaignId}', { params: { path: { campaignId: name } } })), 404, 'not_found');
  });

  test('when the template does not fit the campaign type, then 400 invalid_campaign_params', async () => {
    for (const body of [
      { campaign_type: 'GIFT_VOUCHERS', voucher: discountTemplate() },
      { campaign_type: 'DISCOUNT_COUPONS' },
      { campaign_type: 'PROMOTION', voucher: discountTemplate() },
      { campaign_type: 'DISCOUNT_COUPONS', voucher: discountTemplate(), promotion: { tiers: [{ name: 'Tier' }] } },
    ]) {
      const result = await ctx.client.POST('/v1/campaigns', { body: { name: unique('Mismatch'), ...body } as never });
      expectError(failed(result), 400, 'invalid_campaign_params');
    }
  });

  test('when gift, loyalty, referral and promotion campaigns are made, then their templates fit', async () => {
    const gift = await campaign({ campaign_type: 'GIFT_VOUCHERS', voucher: { type: 'GIFT_VOUCHER', gift: { amount: 5000 } }, vouchers_count: 1 });
    expect(gift.voucher).toMatchObject({ type: 'GIFT_VOUCHER', gift: { amount: 5000, balance: 5000, subtracted_amount: 0, effect: 'APPLY_TO_ORDER' }, discount: null });
    const [card] = (await vouchersOf(gift.id)).vouchers;
    expect(card).toMatchObject({ gift: { amount: 5000, balance: 5000 }, discount: null, loyalty_card: null });
    const loyalty = await campaign({
      campaign_type: 'LOYALTY_PROGRAM',
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 100, expiration_rules: { period_type: 'MONTH', period_value: 12 } } },
      vouchers_count: 1,
    });
    expect((await vouchersOf(loyalty.id)).vouchers[0]).toMatchObject({
      type: 'LOYALTY_CARD',
      loyalty_card: { points: 100, balance: 100, next_expiration_date: null, next_expiration_points: null },
      redemption: { redeemed_points: 0 },
    });
    const referral = await campaign({ campaign_type: 'REFERRAL_PROGRAM', vouchers_count: 1 });
    expect((await vouchersOf(referral.id)).vouchers[0]?.is_referral_code).toBe(true);
    const promotion = await campaign({ campaign_type: 'PROMOTION', voucher: undefined });
    expect(promotion).toMatchObject({ voucher: null, vouchers_count: 0, promotion: { object: 'list', data_ref: 'tiers', tiers: [], total: 0, has_more: false } });
    // Only promotion campaigns carry `promotion`; tiers given at creation are made with the campaign.
    expect('promotion' in gift).toBe(false);
    const tiered = await campaign({ campaign_type: 'PROMOTION', voucher: undefined, promotion: { tiers: [{ name: 'First', action: { discount: { type: 'AMOUNT', amount_off: 100 } } }, { name: 'Second' }] } });
    expect(tiered.promotion?.tiers?.map((tier) => [tier.name, tier.hierarchy, tier.campaign!.id])).toEqual([['First', 1, tiered.id], ['Second', 2, tiered.id]]);
    const got = (await ctx.client.GET('/v1/campaigns/{campaignId}', { params: { path: { campaignId: tiered.id } } })).data!;
    expect(got.promotion?.total).toBe(2);
  });

  test.each([
    ['a day of week of 7', { validity_day_of_week: [7] }],
    ['a timeframe without start_date', { validity_timeframe: { interval: 'P1D', duration: 'PT1H' } }],
    ['a malformed timeframe duration', { start_date: '2026-01-01T00:00:00Z', validity_timeframe: { duration: '1 hour' } }],
    ['a malformed start_date', { start_date: '2026-02-30' }],
    ['a malformed expiration_date', { expiration_date: 'next week' }],
    ['a percent over 100', { voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 101 } } }],
    ['an hours window with a bad time', { validity_hours: { daily: [{ start_time: '25:00', expiration_time: '26:00', days_of_week: [1] }] } }],
    ['an unknown campaign type', { campaign_type: 'LOTTERY' }],
    ['a negative vouchers_count', { vouchers_count: -1 }],
  ])('when the body has %s, then 400 invalid_payload', async (_, override) => {
    const body = { name: unique('Bad'), campaign_type: 'DISCOUNT_COUPONS', voucher: discountTemplate(), ...override };
    expectError(await raw(ctx.target, 'POST', '/v1/campaigns', { body: JSON.stringify(body) }), 400, 'invalid_payload');
  });

  test('when the name is taken, then 409; when the category is unknown, then 404', async () => {
    const made = await campaign();
    expectError(failed(await ctx.client.POST('/v1/campaigns', { body: { name: made.name, campaign_type: 'PROMOTION' } })), 409, 'duplicate_found');
    const unknownCategory = await ctx.client.POST('/v1/campaigns', { body: { name: unique('Cat'), campaign_type: 'PROMOTION', category: unique('nope') } });
    expect(expectError(failed(unknownCategory), 404, 'not_found').resource_type).toBe('category');
  });
});

describe('get, update, enable, disable, list and delete', () => {
  test('when got by name, updated and toggled, then the changes show', async () => {
    const category = (await ctx.client.POST('/v1/categories', { body: { name: unique('CampaignCat'), hierarchy: 1 } })).data!;
    const made = await campaign();
    const byName = await ctx.client.GET('/v1/campaigns/{campaignId}', { params: { path: { campaignId: made.name } } });
    expect(byName.data).toEqual(made);
    const updated = await ctx.client.PUT('/v1/campaigns/{campaignId}', {
      params: { path: { campaignId: made.id } },
      body: { description: 'Updated', category_id: category.id, start_date: '2026-01-01T00:00:00.000Z', validity_timeframe: { interval: 'P1D', duration: 'PT8H' } },
    });
    expect(updated.data).toMatchObject({
      description: 'Updated',
      category: category.name,
      category_id: category.id,
      categories: [category],
      validity_timeframe: { interval: 'P1D', duration: 'PT8H' },
      updated_at: expect.any(String),
    });
    const disabled = await ctx.client.POST('/v1/campaigns/{campaignId}/disable', { params: { path: { campaignId: made.id } } });
    expect(disabled.data?.active).toBe(false);
    const enabled = await ctx.client.POST('/v1/campaigns/{campaignId}/enable', { params: { path: { campaignId: made.name } } });
    expect(enabled.data?.active).toBe(true);
  });

  test('when an update sets a timeframe without any start_date, then 400', async () => {
    const made = await campaign();
    const result = await ctx.client.PUT('/v1/campaigns/{campaignId}', {
      params: { path: { campaignId: made.id } },
      body: { validity_timeframe: { duration: 'PT1H' } },
    });
    expectError(failed(result), 400, 'invalid_campaign_params');
  });

  test('when listed by type, then only that type appears, with exact totals and paging', async () => {
    const gifts = [];
    for (let i = 0; i < 3; i++) gifts.push(await campaign({ campaign_type: 'GIFT_VOUCHERS', voucher: { type: 'GIFT_VOUCHER', gift: { amount: 100 } } }));
    const all = await ctx.client.GET('/v1/campaigns', { params: { query: { campaign_type: 'GIFT_VOUCHERS', limit: 100 } } });
    expect(all.data?.data_ref).toBe('campaigns');
    expect(all.data?.campaigns?.every((c) => c.campaign_type === 'GIFT_VOUCHERS')).toBe(true);
    expect(all.data?.total).toBe(all.data?.campaigns?.length);
    const newest = await ctx.client.GET('/v1/campaigns', { params: { query: { campaign_type: 'GIFT_VOUCHERS', order: '-created_at', limit: 2 } } });
    expect(newest.data?.campaigns?.map((c) => c.id)).toEqual([gifts[2]!.id, gifts[1]!.id]);
    expectError(await raw(ctx.target, 'GET', '/v1/campaigns?limit=101'), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/campaigns?campaign_type=LOTTERY'), 400, 'invalid_query_params');
  });

  test('when deleted, then 202 names an async action, and once it is done the campaign and its vouchers are gone', async () => {
    const made = await campaign({ vouchers_count: 3 });
    const codes = (await vouchersOf(made.id)).vouchers.map((v) => v.code);
    const action = await deletedCampaign(ctx.client, made.id);
    expect(action).toMatchObject({ type: 'CAMPAIGN.VOUCHERS_DELETE', status: 'DONE', result: { done_count: 3 } });
    expectError(failed(await ctx.client.GET('/v1/campaigns/{campaignId}', { params: { path: { campaignId: made.id } } })), 404, 'not_found');
    for (const code of codes) expectError(failed(await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })), 404, 'not_found');
    expectError(await raw(ctx.target, 'POST', `/v1/campaigns/${made.id}/enable`), 404, 'not_found');
    // An unknown campaign is refused at once, with no async action.
    expectError(failed(await ctx.client.DELETE('/v1/campaigns/{campaignId}', { params: { path: { campaignId: made.id } } })), 404, 'not_found');
  });
});

describe('adding vouchers and the summary', () => {
  test('when vouchers are added and deleted, then the summary counts each once, also within a window', async () => {
    const made = await campaign({ vouchers_count: 4 });
    await pause(5);
    const afterCreation = new Date().toISOString();
    await pause(5);
    const one = await ctx.client.POST('/v1/campaigns/{campaignId}/vouchers', {
      params: { path: { campaignId: made.name }, query: { vouchers_count: 1 } },
      body: { metadata: { batch: 'second' } },
    });
    expect(one.data).toMatchObject({ campaign_id: made.id, metadata: { batch: 'second' } });
    const specific = await ctx.client.POST('/v1/campaigns/{campaignId}/vouchers/{code}', {
      params: { path: { campaignId: made.id, code: unique('SPECIFIC') } },
      body: {},
    });
    expect(specific.data).toMatchObject({ campaign_id: made.id, discount: { type: 'PERCENT', percent_off: 10 } });
    const bulk = await ctx.client.POST('/v1/campaigns/{campaignId}/vouchers', {
      params: { path: { campaignId: made.id }, query: { vouchers_count: 5 } },
      body: {},
    });
    // More than one voucher is background work: 202 with the async action to follow.
    expect(bulk.response.status).toBe(202);
    const actionId = (bulk.data as { async_action_id: string }).async_action_id;
    let action = (await ctx.client.GET('/v1/async-actions/{asyncActionId}', { params: { path: { asyncActionId: actionId } } })).data!;
    for (let i = 0; i < 50 && action.status !== 'DONE'; i++) {
      await pause(20);
      action = (await ctx.client.GET('/v1/async-actions/{asyncActionId}', { params: { path: { asyncActionId: actionId } } })).data!;
    }
    expect(action).toMatchObject({
      status: 'DONE',
      operation_status: 'SUCCESS',
      progress: 100,
      result: { done_count: 5, message: expect.any(String) },
      type: 'CAMPAIGN.VOUCHERS_GENERATE',
      request_id: expect.stringMatching(/^v-/),
      processing_time: expect.any(Number),
      object: 'async_action',
    });

    const list = await vouchersOf(made.id);
    expect(list.total).toBe(11);
    const doomed = list.vouchers.slice(0, 2);
    for (const voucher of doomed) {
      expect((await ctx.client.DELETE('/v1/vouchers/{code}', { params: { path: { code: voucher.code } } })).response.status).toBe(204);
    }
    const full = await summary(made.id);
    expect(full).toMatchObject({
      object: 'campaign_summary',
      campaign: { id: made.id, vouchers_count: 9 },
      vouchers_created: 11,
      vouchers_deleted: 2,
      redemptions: 0,
      validations: 0,
      publications: 0,
      rollbacks: 0,
      orders_amount: 0,
      discounted_amount: 0,
    });
    const later = await summary(made.id, { start_date: afterCreation });
    expect(later).toMatchObject({ vouchers_created: 7, vouchers_deleted: 2 });
    const earlier = await summary(made.id, { end_date: afterCreation });
    expect(earlier).toMatchObject({ vouchers_created: 4, vouchers_deleted: 0 });
    const none = await summary(made.id, { end_date: '2000-01-01' });
    expect(none).toMatchObject({ vouchers_created: 0, vouchers_deleted: 0 });
  });

  test('when a STATIC or promotion campaign is asked for more vouchers, or the code is taken, then 4xx', async () => {
    const fixed = await campaign({ type: 'STATIC', vouchers_count: 1 });
    const staticAdd = await ctx.client.POST('/v1/campaigns/{campaignId}/vouchers', { params: { path: { campaignId: fixed.id } }, body: {} });
    expectError(failed(staticAdd), 400, 'invalid_campaign_params');
    const promotion = await campaign({ campaign_type: 'PROMOTION', voucher: undefined });
    const promotionAdd = await ctx.client.POST('/v1/campaigns/{campaignId}/vouchers', { params: { path: { campaignId: promotion.id } }, body: {} });
    expectError(failed(promotionAdd), 400, 'invalid_campaign_params');
    const open = await campaign();
    const code = unique('TAKEN');
    await ctx.client.POST('/v1/campaigns/{campaignId}/vouchers/{code}', { params: { path: { campaignId: open.id, code } }, body: {} });
    const again = await ctx.client.POST('/v1/campaigns/{campaignId}/vouchers/{code}', { params: { path: { campaignId: open.id, code } }, body: {} });
    expectError(failed(again), 409, 'duplicate_found');
    expectError(await raw(ctx.target, 'POST', `/v1/campaigns/${open.id}/vouchers?vouchers_count=0`, { body: '{}' }), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/campaigns/camp_missing/summary'), 404, 'not_found');
    expectError(await raw(ctx.target, 'GET', `/v1/campaigns/${open.id}/summary?start_date=someday`), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/async-actions/aa_missing'), 404, 'not_found');
  });
});
