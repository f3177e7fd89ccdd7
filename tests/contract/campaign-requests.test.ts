/**
 * What real clients send to the campaign operations: a campaign type left to be worked out, validation
 * rules at creation, explicit nulls, whole campaigns PUT back, template changes, referral settings, the
 * list's filters, and the template's counters in responses.
 */
import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { because, managementClientFor, raw, skipPart, unique, useTarget } from './target.js';

const ctx = useTarget();

const discountTemplate = { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 }, code_config: { pattern: 'CR-######' } };

async function create(body: Record<string, unknown>) {
  const result = await raw(ctx.target, 'POST', '/v1/campaigns', { body: JSON.stringify({ name: unique('Campaign'), ...body }) });
  expect({ status: result.status, body: result.body }).toEqual({ status: 200, body: expect.anything() });
  return result.body as Record<string, any>;
}

async function read(campaignId: string) {
  const result = await ctx.client.GET('/v1/campaigns/{campaignId}', { params: { path: { campaignId } } });
  expect(result.response.status).toBe(200);
  return result.data!;
}

async function codesOf(campaignId: string): Promise<string[]> {
  const list = await ctx.client.GET('/v1/vouchers', { params: { query: { campaign_id: campaignId, limit: 100 } } });
  return (list.data?.vouchers ?? []).map((voucher) => voucher.code!);
}

describe('the campaign type, worked out', () => {
  test.each([
    ['a discount template', { voucher: discountTemplate }, 'DISCOUNT_COUPONS'],
    ['a gift template', { voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } }, 'GIFT_VOUCHERS'],
    ['a loyalty card template', { voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } }, 'LOYALTY_PROGRAM'],
    ['a discount template and a referral program', { voucher: discountTemplate, referral_program: { conversion_event_type: 'redemption' } }, 'REFERRAL_PROGRAM'],
    ['a referral code template', { voucher: { ...discountTemplate, is_referral_code: true } }, 'REFERRAL_PROGRAM'],
    ['promotion tiers', { promotion: { tiers: [{ name: 'Tier' }] } }, 'PROMOTION'],
  ])('when campaign_type is left out and the request has %s, then the type follows from it', async (_, body, type) => {
    const made = await create(body);
    expect(made.campaign_type).toBe(type);
    expect((await read(made.id as string)).campaign_type).toBe(type);
  });

  test('when nothing tells the type, or the parts disagree, or the name is missing, then 400 invalid_campaign_params and nothing is made', async () => {
    const name = unique('Untyped');
    for (const body of [
      { name, description: 'no template' },
      { name, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1 } }, promotion: { tiers: [{ name: 'T' }] } },
      { name, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1 } }, referral_program: { conversion_event_type: 'redemption' } },
      { campaign_type: 'DISCOUNT_COUPONS', voucher: discountTemplate },
    ]) {
      expectError(await raw(ctx.target, 'POST', '/v1/campaigns', { body: JSON.stringify(body) }), 400, 'invalid_campaign_params');
    }
    expectError(failed(await ctx.client.GET('/v1/campaigns/{campaignId}', { params: { path: { campaignId: name } } })), 404, 'not_found');
  });
});

describe('creation settings', () => {
  test('when created with a validation rule, then it is assigned to the campaign and listed on it; an unknown rule is a 404', async () => {
    const rule = (
      await ctx.client.POST('/v1/validation-rules', {
        body: { name: unique('CampaignRule'), rules: { '1': { name: 'order.amount', conditions: { $more_than: [0] } }, logic: '1' } } as never,
      })
    ).data!;
    const made = await create({ voucher: discountTemplate, validation_rules: [rule.id] });
    expect(made.validation_rules_assignments).toEqual({
      object: 'list',
      data_ref: 'data',
      data: [expect.objectContaining({ rule_id: rule.id, related_object_id: made.id, related_object_type: 'campaign' })],
      total: 1,
    });
    expect((await read(made.id)).validation_rules_assignments?.total).toBe(1);
    const name = unique('BadRule');
    expectError(await raw(ctx.target, 'POST', '/v1/campaigns', { body: JSON.stringify({ name, voucher: discountTemplate, validation_rules: ['val_missing'] }) }), 404, 'not_found');
    expectError(failed(await ctx.client.GET('/v1/campaigns/{campaignId}', { params: { path: { campaignId: name } } })), 404, 'not_found');
  });

  test('when created with nulls where a client means none, then they mean none', async () => {
    const made = await create({
      campaign_type: 'DISCOUNT_COUPONS',
      voucher: discountTemplate,
      description: null,
      category: null,
      category_id: null,
      start_date: null,
      expiration_date: null,
      validity_timeframe: null,
      validity_day_of_week: null,
      validity_hours: null,
      metadata: null,
      referral_program: null,
      promotion: null,
      validation_rules: null,
      activity_duration_after_publishing: null,
    });
    expect(made).toMatchObject({ description: null, category_id: null, categories: [], start_date: null, metadata: {}, validation_rules_assignments: { total: 0 } });
    expect(made).not.toHaveProperty('referral_program');
    expect(made).not.toHaveProperty('activity_duration_after_publishing');
    const promotion = await create({ campaign_type: 'PROMOTION', voucher: null, promotion: { tiers: null } });
    expect(promotion).toMatchObject({ voucher: null, promotion: { tiers: [], total: 0 } });
  });

  test('when a template carries initial_count, STANDALONE and an activity duration, then they are kept; a STANDALONE campaign cannot gain vouchers', async () => {
    const made = await create({
      type: 'STANDALONE',
      voucher: { ...discountTemplate, code_config: { pattern: 'ST-####', initial_count: 7 } },
      vouchers_count: 1,
      activity_duration_after_publishing: 'P24D',
    });
    expect(made).toMatchObject({ type: 'STANDALONE', vouchers_count: 1, activity_duration_after_publishing: 'P24D' });
    expect(made.voucher.code_config).toMatchObject({ pattern: 'ST-####', initial_count: 7, length: 8, charset: expect.any(String) });
    expectError(await raw(ctx.target, 'POST', `/v1/campaigns/${made.id}/vouchers`, { body: '{}' }), 400, 'invalid_campaign_params');
  });
});

describe('adding vouchers with a code', () => {
  test('when one voucher is added with a code in the body, then it takes that code; with several, a code is a 400', async () => {
    const made = await create({ voucher: discountTemplate });
    const code = unique('BODYCODE');
    const one = await raw(ctx.target, 'POST', `/v1/campaigns/${made.id}/vouchers`, { body: JSON.stringify({ code, metadata: null }) });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ code, campaign_id: made.id, metadata: {} });
    const many = await raw(ctx.target, 'POST', `/v1/campaigns/${made.id}/vouchers?vouchers_count=2`, { body: JSON.stringify({ code: unique('BODYCODE') }) });
    expectError(many, 400, 'invalid_voucher');
    expect(await codesOf(made.id)).toEqual([code]);
  });
});

describe('the template in responses', () => {
  test('when vouchers of a campaign are redeemed, then the template shows their redeemed_quantity; a gift template shows its starting balance', async () => {
    const made = await create({ voucher: { ...discountTemplate, redemption: { quantity: 5 } }, vouchers_count: 2 });
    expect(made).toMatchObject({ is_referral_code: false, voucher: { is_referral_code: false, redemption: { quantity: 5, redeemed_quantity: 0 } } });
    const [first, second] = await codesOf(made.id);
    for (const code of [first, first, second]) {
      const redeemed = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code! }], order: { amount: 10000 } } });
      expect(redeemed.response.status).toBe(200);
    }
    expect((await read(made.id)).voucher?.redemption).toEqual({ quantity: 5, redeemed_quantity: 3 });
    const gift = await create({ voucher: { type: 'GIFT_VOUCHER', gift: { amount: 2000, balance: 1, subtracted_amount: 5 } } });
    expect(gift.voucher.gift).toEqual({ amount: 2000, balance: 2000, subtracted_amount: 0, effect: 'APPLY_TO_ORDER' });
  });

  test('when a referral program names a custom event and a referee reward, then the event ID and reward campaign are filled in', async () => {
    const giftCampaign = await create({ voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } });
    const reward = { related_object_parent: { id: giftCampaign.id }, type: 'GIFT_VOUCHER', amount: 1500 };
    const byRedemption = await create({ voucher: discountTemplate, referral_program: { referee_reward: reward } });
    expect(byRedemption.referral_program).toEqual({
      conversion_event_type: 'redemption',
      referee_reward: { related_object_parent: { id: giftCampaign.id, name: giftCampaign.name, object: 'CAMPAIGN' }, type: 'GIFT_VOUCHER', amount: 1500 },
    });
    expect(byRedemption).toMatchObject({ is_referral_code: true, voucher: { is_referral_code: true } });
    const unnamed = await raw(ctx.target, 'POST', '/v1/campaigns', {
      body: JSON.stringify({ name: unique('NoEvent'), voucher: discountTemplate, referral_program: { conversion_event_type: 'custom_event', custom_event: { id: 'ms_missing' } } }),
    });
    expectError(unnamed, 400, 'invalid_campaign_params');
    if (!ctx.target.management || !ctx.target.projectId) return skipPart(because('management', 'projectId'));
    const eventName = unique('referred');
    const schema = await managementClientFor(ctx.target).POST('/management/v1/projects/{projectId}/custom-event-schemas', {
      params: { path: { projectId: ctx.target.projectId } },
      body: { name: eventName },
    });
    expect(schema.response.status).toBe(200);
    const byName = await create({ campaign_type: 'REFERRAL_PROGRAM', voucher: discountTemplate, referral_program: { conversion_event_type: 'custom_event', custom_event: { name: eventName } } });
    expect(byName.referral_program.custom_event).toEqual({ id: schema.data!.id, name: eventName });
    const byId = await create({ campaign_type: 'REFERRAL_PROGRAM', voucher: discountTemplate, referral_program: { conversion_event_type: 'custom_event', custom_event: { id: schema.data!.id } } });
    expect(byId.referral_program.custom_event).toEqual({ id: schema.data!.id, name: eventName });
  });
});

describe('updates', () => {
  test.each([
    ['discount campaign', { voucher: discountTemplate, vouchers_count: 2, start_date: '2026-01-01T00:00:00.000Z', validity_timeframe: { interval: 'P1D', duration: 'PT4H' }, metadata: { a: 1 } }],
    ['gift campaign', { voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } }, validity_day_of_week: [1, 2], activity_duration_after_publishing: 'P10D' }],
    ['loyalty program', { voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 5, expiration_rules: { period_type: 'MONTH', period_value: 6 } } } }],
    ['referral program', { voucher: discountTemplate, referral_program: { conversion_event_type: 'redemption' } }],
    ['promotion', { promotion: { tiers: [{ name: 'Gold' }] }, validity_hours: { daily: [{ start_time: '10:00', expiration_time: '12:00', days_of_week: [3] }] } }],
  ])('when a whole %s as GET returns it is PUT back, then only updated_at changes', async (_, body) => {
    const made = await create(body);
    const before = await read(made.id);
    const put = await raw(ctx.target, 'PUT', `/v1/campaigns/${made.id}`, { body: JSON.stringify(before) });
    expect({ status: put.status, body: put.body }).toEqual({ status: 200, body: expect.anything() });
    const after = await read(made.id);
    expect(after).toEqual({ ...before, updated_at: expect.any(String) });
  });

  test('when the discount changes, then the template and every voucher take it; a gift changes only the template; metadata keys can be unset', async () => {
    const made = await create({ voucher: discountTemplate, vouchers_count: 2, metadata: { keep: 1, drop: 2 } });
    const discount = { type: 'PERCENT', percent_off: 15 };
    const updated = await raw(ctx.target, 'PUT', `/v1/campaigns/${made.id}`, { body: JSON.stringify({ discount, unset_metadata_fields: ['drop'], description: null }) });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ voucher: { discount }, metadata: { keep: 1 }, description: null });
    for (const code of await codesOf(made.id)) expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data?.discount).toEqual(discount);
    // Null metadata keeps it.
    const kept = await raw(ctx.target, 'PUT', `/v1/campaigns/${made.id}`, { body: JSON.stringify({ metadata: null, discount: null }) });
    expect(kept.body).toMatchObject({ metadata: { keep: 1 }, voucher: { discount } });

    const gift = await create({ voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } }, vouchers_count: 1 });
    const [card] = await codesOf(gift.id);
    const regifted = await raw(ctx.target, 'PUT', `/v1/campaigns/${gift.id}`, { body: JSON.stringify({ gift: { amount: 3000, balance: 5 } }) });
    expect(regifted.body).toMatchObject({ voucher: { gift: { amount: 3000, balance: 3000 } } });
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code: card! } } })).data?.gift).toMatchObject({ amount: 1000, balance: 1000 });
    const added = await ctx.client.POST('/v1/campaigns/{campaignId}/vouchers', { params: { path: { campaignId: gift.id } }, body: {} });
    expect(added.data).toMatchObject({ gift: { amount: 3000, balance: 3000 } });

    expectError(await raw(ctx.target, 'PUT', `/v1/campaigns/${gift.id}`, { body: JSON.stringify({ discount }) }), 400, 'invalid_campaign_params');
    expectError(await raw(ctx.target, 'PUT', `/v1/campaigns/${made.id}`, { body: JSON.stringify({ gift: { amount: 1 } }) }), 400, 'invalid_campaign_params');
  });

  test('when a loyalty program gets tier expiration settings, then they are kept; another campaign type refuses them', async () => {
    const program = await create({ voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    const settings = { qualification_type: 'BALANCE', start_date: { type: 'IMMEDIATE' }, expiration_date: { type: 'CUSTOM', extend: 'P3M' } };
    const updated = await raw(ctx.target, 'PUT', `/v1/campaigns/${program.id}`, { body: JSON.stringify({ loyalty_tiers_expiration: settings, options: { recalculate_tiers: true } }) });
    expect(updated.body).toMatchObject({ loyalty_tiers_expiration: settings });
    const other = await create({ voucher: discountTemplate });
    expectError(await raw(ctx.target, 'PUT', `/v1/campaigns/${other.id}`, { body: JSON.stringify({ loyalty_tiers_expiration: settings }) }), 400, 'invalid_campaign_params');
  });
});

describe('listing with filters', () => {
  test('when listed by status, referral codes and filters, then only matching campaigns come back', async () => {
    const tag = unique('Filtered');
    const gift = await create({ name: `${tag}-gift`, voucher: { type: 'GIFT_VOUCHER', gift: { amount: 100 } } });
    const referral = await create({ name: `${tag}-referral`, voucher: discountTemplate, referral_program: {} });
    const disabled = await create({ name: `${tag}-disabled`, voucher: discountTemplate, expiration_date: '2020-01-01T00:00:00.000Z' });
    await ctx.client.POST('/v1/campaigns/{campaignId}/disable', { params: { path: { campaignId: disabled.id } } });
    const mine = async (query: string) => {
      const result = await raw(ctx.target, 'GET', `/v1/campaigns?limit=100&filters[campaigns][conditions][$starts_with]=${tag}&${query}`);
      expect(result.status).toBe(200);
      return ((result.body as { campaigns: { id: string }[] }).campaigns ?? []).map((campaign) => campaign.id).sort();
    };
    expect(await mine('')).toEqual([gift.id, referral.id, disabled.id].sort());
    expect(await mine('is_referral_code=true')).toEqual([referral.id]);
    expect(await mine('campaign_status=DONE&expand=category')).toEqual([gift.id, referral.id, disabled.id].sort());
    expect(await mine('campaign_status=IN_PROGRESS')).toEqual([]);
    expect(await mine('filters[voucher_type][conditions][$in][]=GIFT_VOUCHER')).toEqual([gift.id]);
    expect(await mine('filters[is_referral_code][conditions][$is]=true')).toEqual([referral.id]);
    expect(await mine('filters[active][$disabled]=')).toEqual([disabled.id]);
    expect(await mine('filters[status][conditions][$expired]=')).toEqual([disabled.id]);
    expect(await mine('filters[active][$active]=')).toEqual([gift.id, referral.id].sort());
    expect(await mine('filters[junction]=or&filters[campaigns_id][conditions][$is]=camp_nobody')).toEqual(
      // With `or`, the name condition alone lets every one of them through.
      [gift.id, referral.id, disabled.id].sort(),
    );
    expect(await mine('access_settings[filter][areas_ids][]=ar_1')).toEqual([gift.id, referral.id, disabled.id].sort());
    expectError(await raw(ctx.target, 'GET', '/v1/campaigns?filters[nickname][conditions][$is]=x'), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/campaigns?filters[active][$sleeping]='), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/campaigns?filters[validity_timeframe][conditions][$before]=2026-01-01'), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/campaigns?campaign_status=LOST'), 400, 'invalid_query_params');
  });
});
