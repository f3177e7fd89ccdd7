import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

async function summaryOf(campaignId: string) {
  return (await ctx.client.GET('/v1/campaigns/{campaignId}/summary', { params: { path: { campaignId } } })).data!;
}

async function campaignWithCode(voucher: Record<string, unknown>, campaignType = 'DISCOUNT_COUPONS') {
  const campaign = (
    await ctx.client.POST('/v1/campaigns', { body: { name: unique('Redeem'), campaign_type: campaignType, voucher, vouchers_count: 1 } as never })
  ).data!;
  const code = (await ctx.client.GET('/v1/vouchers', { params: { query: { campaign_id: campaign.id } } })).data!.vouchers![0]!.code!;
  return { campaign, code };
}

describe('redemptions', () => {
  test('when a discount voucher is redeemed on an order, then the redemption, voucher, customer and summary all count it', async () => {
    const { campaign, code } = await campaignWithCode({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1500 }, redemption: { quantity: 2 } });
    const customer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('redeemer') } })).data!;
    const result = await ctx.client.POST('/v1/redemptions', {
      body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 10000, source_id: unique('order') }, customer: { id: customer.id }, metadata: { till: 3 } },
    });
    expect(result.response.status).toBe(200);
    const { redemptions, parent_redemption: parent, order } = result.data!;
    expect(order).toMatchObject({ amount: 10000, discount_amount: 1500, total_amount: 8500 });
    expect(redemptions).toHaveLength(1);
    expect(redemptions[0]).toMatchObject({
      id: expect.stringMatching(/^r_/),
      amount: 1500,
      result: 'SUCCESS',
      status: 'SUCCEEDED',
      related_object_type: 'voucher',
      voucher_code: code,
      parent_redemption_id: parent.id,
      campaign_id: campaign.id,
      customer_id: customer.id,
      metadata: { till: 3 },
      object: 'redemption',
    });
    expect((await ctx.client.GET('/v1/redemptions/{redemptionId}', { params: { path: { redemptionId: redemptions[0]!.id } } })).data).toEqual(redemptions[0]);
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data?.redemption?.redeemed_quantity).toBe(1);
    const after = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: customer.id } } })).data!;
    expect(after.summary.redemptions).toMatchObject({ total_redeemed: 1, total_succeeded: 1 });
    expect(await summaryOf(campaign.id)).toMatchObject({ redemptions: 1, redemptions_succeeded: 1, orders_amount: 10000, discounted_amount: 1500 });
    const listed = await ctx.client.GET('/v1/redemptions', { params: { query: { customer: customer.source_id!, result: 'SUCCESS' } } });
    expect(listed.data?.redemptions.map((r) => r.id).sort()).toEqual([parent.id, redemptions[0]!.id].sort());
  });

  test('when a voucher is used up, then redeeming fails with quantity_exceeded and changes nothing but the counters', async () => {
    const { campaign, code } = await campaignWithCode({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, redemption: { quantity: 1 } });
    const body = { redeemables: [{ object: 'voucher' as const, id: code }], order: { amount: 1000 } };
    expect((await ctx.client.POST('/v1/redemptions', { body })).response.status).toBe(200);
    const second = await ctx.client.POST('/v1/redemptions', { body });
    expect(expectError(failed(second), 400, 'quantity_exceeded').resource_id).toBe(code);
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data?.redemption?.redeemed_quantity).toBe(1);
    expect(await summaryOf(campaign.id)).toMatchObject({ redemptions: 2, redemptions_succeeded: 1, redemptions_failed: 1 });
    const unknown = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: 'NO-SUCH' }] } });
    expectError(failed(unknown), 404, 'resource_not_found');
  });

  test('when many redemptions of a voucher limited to N arrive at once, then exactly N succeed', async () => {
    const limit = 5;
    const { code } = await campaignWithCode({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 10 }, redemption: { quantity: limit } });
    const attempts = await Promise.all(
      Array.from({ length: 40 }, () => ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 100 } } })),
    );
    const statuses = attempts.map((attempt) => attempt.response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(limit);
    expect(statuses.filter((status) => status === 400)).toHaveLength(40 - limit);
    for (const attempt of attempts) if (attempt.response.status === 400) expect((attempt.error as { key: string }).key).toBe('quantity_exceeded');
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data?.redemption?.redeemed_quantity).toBe(limit);
  });

  test('when a gift card is partly spent and rolled back, then its balance returns and a second rollback fails', async () => {
    const { campaign, code } = await campaignWithCode({ type: 'GIFT_VOUCHER', gift: { amount: 10000 } }, 'GIFT_VOUCHERS');
    const redeemed = await ctx.client.POST('/v1/redemptions', {
      body: { redeemables: [{ object: 'voucher', id: code, gift: { credits: 3000 } }], order: { amount: 8000 } },
    });
    expect(redeemed.data?.order).toMatchObject({ gift_amount: 3000, total_amount: 5000 });
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data?.gift).toMatchObject({ amount: 10000, balance: 7000 });
    const parentId = redeemed.data!.parent_redemption.id;
    const rolled = await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: parentId } }, body: { reason: 'Order cancelled' } });
    expect(rolled.data).toMatchObject({ redemption: parentId, reason: 'Order cancelled', result: 'SUCCESS', gift_amount: 3000, object: 'redemption_rollback' });
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data?.gift).toMatchObject({ balance: 10000 });
    const child = redeemed.data!.redemptions[0]!;
    expect((await ctx.client.GET('/v1/redemptions/{redemptionId}', { params: { path: { redemptionId: child.id } } })).data?.status).toBe('ROLLED_BACK');
    const again = await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: parentId } }, body: {} });
    expectError(failed(again), 400, 'already_rolled_back');
    const childAgain = await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: child.id }, query: { reason: 'In the query' } } });
    expectError(failed(childAgain), 400, 'already_rolled_back');
    // The voucher's redemption list holds the redemption, now rolled back, and its counters.
    const entries = (await ctx.client.GET('/v1/vouchers/{code}/redemption', { params: { path: { code } } })).data!;
    expect(entries).toMatchObject({ object: 'list', data_ref: 'redemption_entries', quantity: null, redeemed_quantity: 0, total: 1, url: `/v1/vouchers/${code}/redemption` });
    expect(entries.redemption_entries.map((entry) => [entry.id, entry.status])).toEqual([[child.id, 'ROLLED_BACK']]);
    expectError(await raw(ctx.target, 'GET', '/v1/vouchers/NO-SUCH-CODE/redemption'), 404, 'not_found');
    expect(await summaryOf(campaign.id)).toMatchObject({ redemptions_succeeded: 1, rollbacks: 3, rollbacks_succeeded: 1, rollbacks_failed: 2, orders_rolledback_amount: 8000 });
    expectError(await raw(ctx.target, 'POST', '/v1/redemptions/r_missing/rollback', { body: '{}' }), 404, 'not_found');
  });

  test('when one of two redeemables fails, then nothing is redeemed; the customer summary counts the attempt, a success and its rollback', async () => {
    const { code } = await campaignWithCode({ type: 'GIFT_VOUCHER', gift: { amount: 10000 } }, 'GIFT_VOUCHERS');
    const customer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('gift-buyer') } })).data!;
    const both = await ctx.client.POST('/v1/redemptions', {
      body: { redeemables: [{ object: 'voucher', id: code, gift: { credits: 2000 } }, { object: 'voucher', id: unique('MISSING') }], order: { amount: 5000 }, customer: { id: customer.id } },
    });
    expect(both.response.status).toBeGreaterThanOrEqual(400);
    expect(both.response.status).toBeLessThan(500);
    const untouched = (await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data!;
    expect(untouched.gift).toMatchObject({ balance: 10000 });
    expect(untouched.redemption!.redeemed_quantity).toBe(0);

    const alone = await ctx.client.POST('/v1/redemptions', {
      body: { redeemables: [{ object: 'voucher', id: code, gift: { credits: 2000 } }], order: { amount: 5000 }, customer: { id: customer.id } },
    });
    await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: alone.data!.parent_redemption.id } } });
    const summary = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: customer.id } } })).data!.summary.redemptions;
    expect(summary).toEqual({
      total_redeemed: 2,
      total_failed: 1,
      total_succeeded: 1,
      total_rolled_back: 1,
      total_rollback_failed: 0,
      total_rollback_succeeded: 1,
      gift: { redeemed_amount: 0, amount_to_go: 0 },
      loyalty_card: { redeemed_points: 0, points_to_go: 0 },
    });
  });

  test('when a voucher and a promotion tier are redeemed together, then the tier summary counts it', async () => {
    const promotion = (await ctx.client.POST('/v1/campaigns', { body: { name: unique('RedeemPromo'), campaign_type: 'PROMOTION' } })).data!;
    const tier = (
      await ctx.client.POST('/v1/promotions/{campaignId}/tiers', {
        params: { path: { campaignId: promotion.id } },
        body: { name: '5%', action: { discount: { type: 'PERCENT', percent_off: 5 } } },
      })
    ).data!;
    const { code } = await campaignWithCode({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1000 } });
    const result = await ctx.client.POST('/v1/redemptions', {
      body: { redeemables: [{ object: 'voucher', id: code }, { object: 'promotion_tier', id: tier.id }], order: { amount: 11000 } },
    });
    expect(result.data?.redemptions.map((r) => r.amount)).toEqual([1000, 500]);
    const after = (await ctx.client.GET('/v1/promotions/tiers/{promotionTierId}', { params: { path: { promotionTierId: tier.id } } })).data!;
    expect(after.summary).toEqual({ redemptions: { total_redeemed: 1 }, orders: { total_amount: 11000, total_discount_amount: 500 } });
    await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: result.data!.parent_redemption.id } } });
    const rolledBack = (await ctx.client.GET('/v1/promotions/tiers/{promotionTierId}', { params: { path: { promotionTierId: tier.id } } })).data!;
    expect(rolledBack.summary).toEqual({ redemptions: { total_redeemed: 0 }, orders: { total_amount: 0, total_discount_amount: 0 } });
  });

  test('when the rollback reason comes in the query, then it is kept; a reason in the body wins over it', async () => {
    const { code } = await campaignWithCode({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } });
    const redeem = async () =>
      (await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 1000 } } })).data!.redemptions[0]!.id;
    const first = await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: await redeem() }, query: { reason: 'Returned' } } });
    expect(first.data).toMatchObject({ reason: 'Returned', result: 'SUCCESS' });
    const second = await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', {
      params: { path: { redemptionId: await redeem() }, query: { reason: 'Query' } },
      body: { reason: 'Body' },
    });
    expect(second.data).toMatchObject({ reason: 'Body', result: 'SUCCESS' });
    // Both redemptions are the voucher's, each rolled back, and none is counted any more.
    const entries = (await ctx.client.GET('/v1/vouchers/{code}/redemption', { params: { path: { code } } })).data!;
    expect(entries).toMatchObject({ redeemed_quantity: 0, total: 2 });
    expect(entries.redemption_entries.map((entry) => entry.id).sort()).toEqual([first.data!.redemption, second.data!.redemption].sort());
    expect(entries.redemption_entries.every((entry) => entry.status === 'ROLLED_BACK')).toBe(true);
    expectError(await raw(ctx.target, 'POST', `/v1/redemptions/${first.data!.redemption}/rollback?reason=`, { body: '{}' }), 400, 'invalid_query_params');
  });

  test('when list queries are out of range, then 400', async () => {
    expectError(await raw(ctx.target, 'GET', '/v1/redemptions?limit=0'), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/redemptions?result=MAYBE'), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'POST', '/v1/redemptions', { body: '{"redeemables":[]}' }), 400, 'invalid_payload');
  });
});

describe('per-customer limits', () => {
  test('when a rule allows one redemption per customer, then a second by the same customer fails and another customer succeeds', async () => {
    const { code } = await campaignWithCode({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 10 } });
    const rule = (
      await ctx.client.POST('/v1/validation-rules', {
        body: { name: 'Once each', rules: { '1': { name: 'redemption.count.per_customer', conditions: { $less_than: [1] }, error: { message: 'Once per customer' } } } },
      })
    ).data!;
    await ctx.client.POST('/v1/validation-rules/{validationRuleId}/assignments', { params: { path: { validationRuleId: rule.id } }, body: { related_object_type: 'voucher', related_object_id: code } });
    const [first, second] = [unique('once-a'), unique('once-b')];
    const redeemAs = (sourceId: string) =>
      ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 100 }, customer: { source_id: sourceId } } });
    await ctx.client.POST('/v1/customers', { body: { source_id: first } });
    await ctx.client.POST('/v1/customers', { body: { source_id: second } });
    expect((await redeemAs(first)).response.status).toBe(200);
    const again = await redeemAs(first);
    expect(expectError(failed(again), 400, 'redemption_rules_violated').details).toBe('Once per customer');
    expect((await redeemAs(second)).response.status).toBe(200);
  });
});
