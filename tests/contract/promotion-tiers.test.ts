import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

async function promotion() {
  return (await ctx.client.POST('/v1/campaigns', { body: { name: unique('Promotion'), campaign_type: 'PROMOTION' } })).data!;
}

async function rule() {
  return (
    await ctx.client.POST('/v1/validation-rules', {
      body: { name: 'Min 100.00', rules: { '1': { name: 'order.amount', conditions: { $more_than_or_equal: [10000] } } } },
    })
  ).data!;
}

describe('promotion tiers', () => {
  test('when a tier is created with rules, then it lists its assignments, its campaign and a zero summary', async () => {
    const campaign = await promotion();
    const minimum = await rule();
    const result = await ctx.client.POST('/v1/promotions/{campaignId}/tiers', {
      params: { path: { campaignId: campaign.name! } },
      body: {
        name: 'Ten percent',
        banner: 'Save 10%',
        action: { discount: { type: 'PERCENT', percent_off: 10 } },
        metadata: { level: 1 },
        start_date: '2026-01-01T00:00:00.000Z',
        validity_timeframe: { interval: 'P1W', duration: 'P1D' },
        validity_day_of_week: [5],
        validity_hours: { daily: [{ start_time: '16:00', expiration_time: '18:00', days_of_week: [5] }] },
        validation_rules: [minimum.id],
      },
    });
    expect(result.response.status).toBe(200);
    const tier = result.data!;
    expect(tier).toMatchObject({
      id: expect.stringMatching(/^promo_/),
      name: 'Ten percent',
      banner: 'Save 10%',
      action: { discount: { type: 'PERCENT', percent_off: 10 } },
      hierarchy: 1,
      campaign_id: campaign.id,
      promotion_id: campaign.id,
      campaign: { id: campaign.id, active: true, object: 'campaign' },
      active: true,
      validity_day_of_week: [5],
      summary: { redemptions: { total_redeemed: 0 }, orders: { total_amount: 0, total_discount_amount: 0 } },
      object: 'promotion_tier',
      categories: [],
    });
    expect(tier.validation_rule_assignments).toMatchObject({
      object: 'list',
      data_ref: 'data',
      total: 1,
      data: [{ rule_id: minimum.id, related_object_id: tier.id, related_object_type: 'promotion_tier' }],
    });
    const second = await ctx.client.POST('/v1/promotions/{campaignId}/tiers', { params: { path: { campaignId: campaign.id! } }, body: { name: 'Second' } });
    expect(second.data?.hierarchy).toBe(2);
    const listed = await ctx.client.GET('/v1/promotions/{campaignId}/tiers', { params: { path: { campaignId: campaign.id! } } });
    expect(listed.data).toMatchObject({ object: 'list', data_ref: 'tiers', total: 2, has_more: false });
    expect(listed.data?.tiers?.map((t) => t.id)).toEqual([tier.id, second.data!.id]);
  });

  test('when updated, disabled and enabled, then get shows it; deleting drops it and its assignments', async () => {
    const campaign = await promotion();
    const minimum = await rule();
    const tier = (
      await ctx.client.POST('/v1/promotions/{campaignId}/tiers', { params: { path: { campaignId: campaign.id! } }, body: { name: 'T', validation_rules: [minimum.id] } })
    ).data!;
    const path = { promotionTierId: tier.id! };
    const updated = await ctx.client.PUT('/v1/promotions/tiers/{promotionTierId}', { params: { path }, body: { banner: 'New', hierarchy: 7 } });
    expect(updated.data).toMatchObject({ banner: 'New', hierarchy: 7, updated_at: expect.any(String) });
    expect((await ctx.client.POST('/v1/promotions/tiers/{promotionTierId}/disable', { params: { path } })).data?.active).toBe(false);
    const unavailable = await ctx.client.GET('/v1/promotions/tiers', { params: { query: { is_available: false, limit: 100 } } });
    expect(unavailable.data?.tiers?.map((t) => t.id)).toContain(tier.id);
    expect((await ctx.client.POST('/v1/promotions/tiers/{promotionTierId}/enable', { params: { path } })).data?.active).toBe(true);
    const available = await ctx.client.GET('/v1/promotions/tiers', { params: { query: { is_available: true, limit: 100 } } });
    expect(available.data?.tiers?.map((t) => t.id)).toContain(tier.id);
    expect((await ctx.client.DELETE('/v1/promotions/tiers/{promotionTierId}', { params: { path } })).response.status).toBe(204);
    expectError(failed(await ctx.client.GET('/v1/promotions/tiers/{promotionTierId}', { params: { path } })), 404, 'not_found');
    const left = await ctx.client.GET('/v1/validation-rules-assignments', { params: { query: { rule: minimum.id } } });
    expect(left.data?.total).toBe(0);
  });

  test('when a tier is read, then it carries its campaign\'s validity and category, its category and its counters', async () => {
    const campaignCategory = (await ctx.client.POST('/v1/categories', { body: { name: unique('PromoCampaignCat'), hierarchy: 1 } })).data!;
    const tierCategory = (await ctx.client.POST('/v1/categories', { body: { name: unique('TierCat'), hierarchy: 2 } })).data!;
    const campaign = (
      await ctx.client.POST('/v1/campaigns', {
        body: {
          name: unique('WindowedPromotion'),
          campaign_type: 'PROMOTION',
          start_date: '2026-01-01T00:00:00.000Z',
          expiration_date: '2027-01-01T00:00:00.000Z',
          validity_timeframe: { interval: 'P1D', duration: 'PT12H' },
          validity_day_of_week: [1, 2, 3, 4, 5],
          validity_hours: { daily: [{ start_time: '08:00', expiration_time: '20:00', days_of_week: [1, 2, 3, 4, 5] }] },
          category_id: campaignCategory.id,
        },
      })
    ).data!;
    const made = await ctx.client.POST('/v1/promotions/{campaignId}/tiers', {
      params: { path: { campaignId: campaign.id! } },
      body: { name: 'Filed', category_id: tierCategory.id },
    });
    const tier = (await ctx.client.GET('/v1/promotions/tiers/{promotionTierId}', { params: { path: { promotionTierId: made.data!.id! } } })).data!;
    expect(tier).toEqual({
      id: made.data!.id,
      created_at: expect.any(String),
      updated_at: null,
      name: 'Filed',
      banner: null,
      action: null,
      metadata: {},
      hierarchy: 1,
      promotion_id: campaign.id,
      campaign: {
        id: campaign.id,
        start_date: '2026-01-01T00:00:00.000Z',
        expiration_date: '2027-01-01T00:00:00.000Z',
        validity_timeframe: { interval: 'P1D', duration: 'PT12H' },
        validity_day_of_week: [1, 2, 3, 4, 5],
        validity_hours: { daily: [{ start_time: '08:00', expiration_time: '20:00', days_of_week: [1, 2, 3, 4, 5] }] },
        active: true,
        category_id: campaignCategory.id,
        object: 'campaign',
      },
      campaign_id: campaign.id,
      active: true,
      start_date: null,
      expiration_date: null,
      validity_timeframe: null,
      validity_day_of_week: null,
      validity_hours: null,
      summary: { redemptions: { total_redeemed: 0 }, orders: { total_amount: 0, total_discount_amount: 0 } },
      object: 'promotion_tier',
      validation_rule_assignments: { object: 'list', data_ref: 'data', data: [], total: 0 },
      category_id: tierCategory.id,
      categories: [tierCategory],
    });
  });

  test('when a whole tier as GET returns it is PUT back, then it is accepted and only updated_at changes', async () => {
    const campaign = await promotion();
    const minimum = await rule();
    const made = await ctx.client.POST('/v1/promotions/{campaignId}/tiers', {
      params: { path: { campaignId: campaign.id! } },
      body: {
        name: 'Round trip',
        banner: 'Save 5.00',
        action: { discount: { type: 'AMOUNT', amount_off: 500 } },
        metadata: { channel: 'web' },
        start_date: '2026-01-01T00:00:00.000Z',
        validity_timeframe: { interval: 'P1W', duration: 'P1D' },
        validation_rules: [minimum.id],
      },
    });
    const path = { promotionTierId: made.data!.id! };
    const before = (await ctx.client.GET('/v1/promotions/tiers/{promotionTierId}', { params: { path } })).data!;
    const put = await raw(ctx.target, 'PUT', `/v1/promotions/tiers/${before.id}`, { body: JSON.stringify(before) });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ ...before, updated_at: expect.any(String) });
    expect((put.body as { updated_at: string | null }).updated_at).not.toBeNull();
    expect((await ctx.client.GET('/v1/promotions/tiers/{promotionTierId}', { params: { path } })).data).toEqual(put.body);
  });

  test('when an update sends null, then the banner, action, metadata, dates and category are cleared', async () => {
    const campaign = await promotion();
    const category = (await ctx.client.POST('/v1/categories', { body: { name: unique('ClearedCat'), hierarchy: 3 } })).data!;
    const made = await ctx.client.POST('/v1/promotions/{campaignId}/tiers', {
      params: { path: { campaignId: campaign.id! } },
      body: {
        name: 'Clear me',
        banner: 'Soon gone',
        action: { discount: { type: 'PERCENT', percent_off: 5 } },
        metadata: { a: 1 },
        start_date: '2026-01-01T00:00:00.000Z',
        validity_day_of_week: [1],
        category_id: category.id,
      },
    });
    const cleared = await ctx.client.PUT('/v1/promotions/tiers/{promotionTierId}', {
      params: { path: { promotionTierId: made.data!.id! } },
      body: { banner: null, action: null, metadata: null, start_date: null, validity_day_of_week: null, category_id: null },
    });
    expect(cleared.response.status).toBe(200);
    expect(cleared.data).toMatchObject({ banner: null, action: null, metadata: {}, start_date: null, validity_day_of_week: null, category_id: null, categories: [] });
  });

  test('when the campaign is not a promotion, a rule is unknown, or the body is bad, then 4xx and no tier', async () => {
    const discount = (
      await ctx.client.POST('/v1/campaigns', {
        body: { name: unique('NotPromo'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } },
      })
    ).data!;
    expectError(failed(await ctx.client.POST('/v1/promotions/{campaignId}/tiers', { params: { path: { campaignId: discount.id! } }, body: { name: 'x' } })), 400, 'invalid_campaign_params');
    const campaign = await promotion();
    const unknownRule = await ctx.client.POST('/v1/promotions/{campaignId}/tiers', { params: { path: { campaignId: campaign.id! } }, body: { name: 'x', validation_rules: ['val_nope'] } });
    expectError(failed(unknownRule), 404, 'not_found');
    const tiers = await ctx.client.GET('/v1/promotions/{campaignId}/tiers', { params: { path: { campaignId: campaign.id! } } });
    expect(tiers.data?.total).toBe(0);
    for (const body of [
      {},
      { name: 'x', validity_day_of_week: [7] },
      { name: 'x', validity_timeframe: { interval: 'P1D', duration: 'PT1H' } },
      { name: 'x', start_date: 'soon' },
      { name: 'x', action: { discount: { type: 'PERCENT' } } },
    ]) {
      expectError(await raw(ctx.target, 'POST', `/v1/promotions/${campaign.id}/tiers`, { body: JSON.stringify(body) }), 400, 'invalid_payload');
    }
    expectError(await raw(ctx.target, 'POST', '/v1/promotions/camp_nope/tiers', { body: '{"name":"x"}' }), 404, 'not_found');
    expectError(await raw(ctx.target, 'GET', '/v1/promotions/tiers?limit=0'), 400, 'invalid_query_params');
  });
});
