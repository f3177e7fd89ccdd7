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
    const { redemptions = [], parent_redemption: parent, order } = result.data!;
    expect(order).toMatchObject({ amount: 10000, discount_amount: 1500, total_amount: 8500 });
    if (!parent) throw new Error('no parent redemption');
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
    const after = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: customer.id! } } })).data!;
    expect(after.summary?.redemptions).toMatchObject({ total_redeemed: 1, total_succeeded: 1 });
    expect(await summaryOf(campaign.id!)).toMatchObject({ redemptions: 1, redemptions_succeeded: 1, orders_amount: 10000, discounted_amount: 1500 });
    const listed = await ctx.client.GET('/v1/redemptions', { params: { query: { customer: customer.source_id!, result: 'SUCCESS' } } });
    expect(listed.data?.redemptions.map((r) => r.id).sort()).toEqual([parent.id, redemptions[0]!.id].sort());
  });

  test('when a redemption names a customer by a source_id no customer has, then the customer is upserted and owns the redemption; a validation creates none', async () => {
    const { code } = await campaignWithCode({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, redemption: { quantity: 3 } });
    const validatedOnly = unique('validated-only');
    const validated = await ctx.client.POST('/v1/validations', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 1000 }, customer: { source_id: validatedOnly } } });
    expect(validated.response.status).toBe(200);
    expect((await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: validatedOnly } } })).response.status).toBe(404);

    const sourceId = unique('first-time-buyer');
    const named = { source_id: sourceId, name: 'Rhea Quill', email: 'rhea.quill@example.org', metadata: { tier: 'new' } };
    const redeemed = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 1000 }, customer: named } });
    expect(redeemed.response.status).toBe(200);
    const stored = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: sourceId } } })).data!;
    expect(stored).toMatchObject({ id: expect.stringMatching(/^cust_/), source_id: sourceId, name: 'Rhea Quill', email: 'rhea.quill@example.org', metadata: { tier: 'new' } });
    const entry = redeemed.data!.redemptions![0]!;
    expect(entry.customer_id).toBe(stored.id);
    expect(entry.customer).toMatchObject({ id: stored.id, source_id: sourceId, object: 'customer' });
    expect(redeemed.data!.order).toMatchObject({ customer_id: stored.id });
    expect(stored.summary?.redemptions).toMatchObject({ total_redeemed: 1, total_succeeded: 1 });

    // Named again with a new name: the same customer, upserted with it.
    const again = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 1000 }, customer: { source_id: sourceId, name: 'Rhea Quill-Marsh' } } });
    expect(again.data!.redemptions![0]!.customer_id).toBe(stored.id);
    const after = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: stored.id! } } })).data!;
    expect(after).toMatchObject({ name: 'Rhea Quill-Marsh', email: 'rhea.quill@example.org', summary: { redemptions: { total_redeemed: 2, total_succeeded: 2 } } });
  });

  test('when a voucher is used up, then redeeming fails with quantity_exceeded and changes nothing but the counters', async () => {
    const { campaign, code } = await campaignWithCode({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, redemption: { quantity: 1 } });
    const body = { redeemables: [{ object: 'voucher' as const, id: code }], order: { amount: 1000 } };
    expect((await ctx.client.POST('/v1/redemptions', { body })).response.status).toBe(200);
    const second = await ctx.client.POST('/v1/redemptions', { body });
    expect(expectError(failed(second), 400, 'quantity_exceeded').resource_id).toBe(code);
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data?.redemption?.redeemed_quantity).toBe(1);
    expect(await summaryOf(campaign.id!)).toMatchObject({ redemptions: 2, redemptions_succeeded: 1, redemptions_failed: 1 });
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
    // The card's own redemption is for the credit it paid.
    expect(redeemed.data?.redemptions?.[0]).toMatchObject({ amount: 3000, gift: { amount: 3000 }, gift_amount: 3000 });
    expect(redeemed.data?.parent_redemption).toMatchObject({ amount: 0 });
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data?.gift).toMatchObject({ amount: 10000, balance: 7000 });
    const parentId = redeemed.data!.parent_redemption!.id!;
    const rolled = await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: parentId } }, body: { reason: 'Order cancelled' } });
    expect(rolled.data).toMatchObject({ redemption: parentId, reason: 'Order cancelled', result: 'SUCCESS', gift_amount: 3000, object: 'redemption_rollback' });
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data?.gift).toMatchObject({ balance: 10000 });
    const child = redeemed.data!.redemptions![0]!;
    expect((await ctx.client.GET('/v1/redemptions/{redemptionId}', { params: { path: { redemptionId: child.id } } })).data?.status).toBe('ROLLED_BACK');
    const again = await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: parentId } }, body: {} });
    expectError(failed(again), 400, 'already_rolled_back');
    const childAgain = await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: child.id }, query: { reason: 'In the query' } } });
    expectError(failed(childAgain), 400, 'already_rolled_back');
    // The voucher's redemption list holds the redemption, now rolled back, its rollback (newest first) and its counters.
    const entries = (await ctx.client.GET('/v1/vouchers/{code}/redemption', { params: { path: { code } } })).data!;
    expect(entries).toMatchObject({ object: 'list', data_ref: 'redemption_entries', quantity: null, redeemed_quantity: 0, total: 2, url: `/v1/vouchers/${code}/redemption` });
    const childRollback = entries.redemption_entries[0]!;
    expect(childRollback).toMatchObject({ id: expect.stringMatching(/^rr_/), object: 'redemption_rollback', redemption: child.id, gift: { amount: 3000 }, voucher: { code } });
    expect(entries.redemption_entries[1]).toMatchObject({ id: child.id, status: 'ROLLED_BACK', related_redemptions: { rollbacks: [{ id: childRollback.id, rollback_order_mode: 'WITHOUT_ORDER' }] } });
    expectError(await raw(ctx.target, 'GET', '/v1/vouchers/NO-SUCH-CODE/redemption'), 404, 'not_found');
    expect(await summaryOf(campaign.id!)).toMatchObject({ redemptions_succeeded: 1, rollbacks: 3, rollbacks_succeeded: 1, rollbacks_failed: 2, orders_rolledback_amount: 8000 });
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
    await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: alone.data!.parent_redemption!.id } } });
    const summary = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: customer.id! } } })).data!.summary!.redemptions;
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
        params: { path: { campaignId: promotion.id! } },
        body: { name: '5%', action: { discount: { type: 'PERCENT', percent_off: 5 } } },
      })
    ).data!;
    const { code } = await campaignWithCode({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1000 } });
    const result = await ctx.client.POST('/v1/redemptions', {
      body: { redeemables: [{ object: 'voucher', id: code }, { object: 'promotion_tier', id: tier.id! }], order: { amount: 11000 } },
    });
    expect(result.data?.redemptions?.map((r) => r.amount)).toEqual([1000, 500]);
    // Each redemption shows what it redeemed: the voucher, or the promotion tier.
    expect(result.data?.redemptions?.[0]).toMatchObject({ voucher: { code, object: 'voucher' } });
    expect(result.data?.redemptions?.[0]).not.toHaveProperty('promotion_tier');
    expect(result.data?.redemptions?.[1]).toMatchObject({ promotion_tier: { id: tier.id, name: '5%', object: 'promotion_tier' } });
    const after = (await ctx.client.GET('/v1/promotions/tiers/{promotionTierId}', { params: { path: { promotionTierId: tier.id! } } })).data!;
    expect(after.summary).toEqual({ redemptions: { total_redeemed: 1 }, orders: { total_amount: 11000, total_discount_amount: 500 } });
    await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: result.data!.parent_redemption!.id! } } });
    const rolledBack = (await ctx.client.GET('/v1/promotions/tiers/{promotionTierId}', { params: { path: { promotionTierId: tier.id! } } })).data!;
    expect(rolledBack.summary).toEqual({ redemptions: { total_redeemed: 0 }, orders: { total_amount: 0, total_discount_amount: 0 } });
  });

  test('when the rollback reason comes in the query, then it is kept; a reason in the body wins over it', async () => {
    const { code } = await campaignWithCode({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } });
    const redeem = async () =>
      (await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 1000 } } })).data!.redemptions![0]!.id!;
    const first = await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: await redeem() }, query: { reason: 'Returned' } } });
    expect(first.data).toMatchObject({ reason: 'Returned', result: 'SUCCESS' });
    const second = await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', {
      params: { path: { redemptionId: await redeem() }, query: { reason: 'Query' } },
      body: { reason: 'Body' },
    });
    expect(second.data).toMatchObject({ reason: 'Body', result: 'SUCCESS' });
    // Both redemptions are the voucher's, each rolled back (with its rollback listed too), and none is counted any more.
    const entries = (await ctx.client.GET('/v1/vouchers/{code}/redemption', { params: { path: { code } } })).data!;
    expect(entries).toMatchObject({ redeemed_quantity: 0, total: 4 });
    const redemptions = entries.redemption_entries.filter((entry) => entry.object === 'redemption');
    expect(redemptions.map((entry) => entry.id).sort()).toEqual([first.data!.redemption, second.data!.redemption].sort());
    expect(redemptions.every((entry) => entry.status === 'ROLLED_BACK')).toBe(true);
    expect(entries.redemption_entries.filter((entry) => entry.object === 'redemption_rollback').map((entry) => entry.id).sort()).toEqual([first.data!.id, second.data!.id].sort());
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
    // The rule's own message is the error's `error.message`; `details` says which rule failed.
    expect(expectError(failed(again), 400, 'redemption_rules_violated')).toMatchObject({ error: { message: 'Once per customer' }, details: expect.stringContaining('Once each') });
    expect((await redeemAs(second)).response.status).toBe(200);
  });
});

describe('redemption entries', () => {
  test('when a redemption is made, then it shows its customer, voucher and channel, and rollbacks are entries of their own', async () => {
    const { campaign, code } = await campaignWithCode({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 400 } });
    const customer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('shown'), name: 'Ada Lovelace', email: 'ada@example.com', metadata: { vip: true } } })).data!;
    const result = await ctx.client.POST('/v1/redemptions', {
      body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000, source_id: unique('shown-order') }, customer: { id: customer.id } },
    });
    expect(result.response.status).toBe(200);
    const child = result.data!.redemptions![0]!;
    const parent = result.data!.parent_redemption!;
    const simple = { id: customer.id, name: 'Ada Lovelace', email: 'ada@example.com', source_id: customer.source_id, metadata: { vip: true }, object: 'customer' };
    expect(child).toMatchObject({
      redemption: parent.id,
      customer: simple,
      channel: { channel_id: expect.any(String), channel_type: 'API' },
      voucher: { code, campaign_id: campaign.id, redemption: { redeemed_quantity: 1 }, assets: { qr: { url: expect.any(String) } } },
      order: { id: expect.stringMatching(/^ord_/), status: 'PAID', customer_id: customer.id, customer: { id: customer.id, object: 'customer' } },
    });
    expect(parent).toMatchObject({ redemption: null, related_object_type: 'redemption', related_object_id: parent.id, customer: simple });
    expect(parent).not.toHaveProperty('voucher');
    // The order keeps the redemption under its parent.
    const order = (await ctx.client.GET('/v1/orders/{orderId}', { params: { path: { orderId: child.order!.id! } } })).data!;
    expect(order.redemptions).toEqual({ [parent.id]: { date: parent.date, related_object_type: 'redemption', related_object_id: parent.id, stacked: [child.id] } });

    const rolled = await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: parent.id } }, body: { reason: 'Returned', metadata: { desk: 2 } } });
    expect(rolled.response.status).toBe(200);
    expect(rolled.data).toMatchObject({
      id: expect.stringMatching(/^rr_/),
      object: 'redemption_rollback',
      redemption: parent.id,
      related_object_type: 'redemption',
      customer: simple,
      customer_id: customer.id,
      metadata: { desk: 2 },
      amount: 400,
      rollbacks: [child.id],
      channel: { channel_type: 'API' },
    });
    const rollbackId = rolled.data!.id;
    // The rollback is found by its ID and listed with the redemptions.
    expect((await ctx.client.GET('/v1/redemptions/{redemptionId}', { params: { path: { redemptionId: rollbackId } } })).data).toEqual(rolled.data);
    const listed = await ctx.client.GET('/v1/redemptions', { params: { query: { customer: customer.id } } });
    expect(listed.data?.redemptions.map((entry) => [entry.object, entry.status])).toEqual([
      ['redemption_rollback', 'SUCCEEDED'],
      ['redemption_rollback', 'SUCCEEDED'],
      ['redemption', 'ROLLED_BACK'],
      ['redemption', 'ROLLED_BACK'],
    ]);
    const childRollback = listed.data!.redemptions.find((entry) => entry.object === 'redemption_rollback' && entry.redemption === child.id)!;
    expect(childRollback).toMatchObject({ parent_rollback_id: rollbackId, voucher: { code }, amount: 400 });
    const after = (await ctx.client.GET('/v1/redemptions/{redemptionId}', { params: { path: { redemptionId: child.id } } })).data!;
    expect(after).toMatchObject({ status: 'ROLLED_BACK', related_redemptions: { rollbacks: [{ id: childRollback.id, date: rolled.data!.date }] } });
    const rolledOrder = (await ctx.client.GET('/v1/orders/{orderId}', { params: { path: { orderId: child.order!.id! } } })).data!;
    expect(rolledOrder.redemptions![parent.id]).toMatchObject({ rollback_id: rollbackId, rollback_date: rolled.data!.date, rollback_stacked: [childRollback.id] });
    // A rollback cannot itself be rolled back.
    expectError(await raw(ctx.target, 'POST', `/v1/redemptions/${rollbackId}/rollback`, { body: '{}' }), 400, 'invalid_rollback_params');
  });

  test('when a redemption fails, then a failed redemption is recorded for the voucher with the reason', async () => {
    const { code } = await campaignWithCode({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, redemption: { quantity: 1 } });
    const customer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('failing') } })).data!;
    const body = { redeemables: [{ object: 'voucher' as const, id: code }], order: { amount: 1000 }, customer: { id: customer.id } };
    expect((await ctx.client.POST('/v1/redemptions', { body })).response.status).toBe(200);
    expect((await ctx.client.POST('/v1/redemptions', { body })).response.status).toBe(400);
    const failures = (await ctx.client.GET('/v1/redemptions', { params: { query: { customer: customer.id, result: 'FAILURE' } } })).data!;
    expect(failures.total).toBe(1);
    expect(failures.redemptions[0]).toMatchObject({
      object: 'redemption',
      result: 'FAILURE',
      status: 'FAILED',
      failure_code: 'quantity_exceeded',
      failure_message: expect.any(String),
      related_object_type: 'voucher',
      redemption: null,
      customer_id: customer.id,
      voucher: { code },
    });
    const entries = (await ctx.client.GET('/v1/vouchers/{code}/redemption', { params: { path: { code } } })).data!;
    expect(entries.redemption_entries.map((entry) => entry.status)).toEqual(['FAILED', 'SUCCEEDED']);
    expect(entries.redeemed_quantity).toBe(1);
    expectError(await raw(ctx.target, 'POST', `/v1/redemptions/${failures.redemptions[0]!.id}/rollback`, { body: '{}' }), 400, 'invalid_rollback_params');
  });

  test('when the list is filtered, then only matching entries come back; an unknown field or operator is refused', async () => {
    const prefix = unique('FLT');
    const first = await campaignWithCode({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } });
    const mine = `${prefix}-A`;
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code: mine } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 50 }, campaign_id: first.campaign.id } });
    const customer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('filtered') } })).data!;
    const redeem = (id: string) => ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id }], order: { amount: 1000 }, customer: { id: customer.id } } });
    const byCode = (await redeem(mine)).data!.redemptions![0]!;
    const other = (await redeem(first.code)).data!.redemptions![0]!;
    const list = (query: string) => raw(ctx.target, 'GET', `/v1/redemptions?${query}`);

    const starts = await list(`filters[voucher_code][conditions][$starts_with]=${prefix}`);
    expect(starts.status).toBe(200);
    expect((starts.body as { redemptions: { id: string }[] }).redemptions.map((entry) => entry.id)).toEqual([byCode.id]);
    const campaignName = encodeURIComponent(first.campaign.name!);
    const both = await list(`filters[campaign_name][conditions][$is]=${campaignName}&filters[object][conditions][$in][]=redemption&order=created_at`);
    expect((both.body as { redemptions: { id: string }[] }).redemptions.map((entry) => entry.id)).toEqual([byCode.id, other.id]);
    const either = await list(`filters[junction]=or&filters[voucher_code][conditions][$is]=${mine}&filters[related_object_id][conditions][$is]=${other.related_object_id}`);
    expect((either.body as { total: number }).total).toBe(2);
    const children = await list(`filters[parent_redemption_id][conditions][$is]=${byCode.redemption}`);
    expect((children.body as { redemptions: { id: string }[] }).redemptions.map((entry) => entry.id)).toEqual([byCode.id]);
    const notApi = await list(`filters[user_login][conditions][$has_value]=x&customer=${customer.id}`);
    expect((notApi.body as { total: number }).total).toBe(0);
    const window = await list(`customer=${customer.id}&created_at[after]=2000-01-01&created_at[before]=2999-01-01`);
    expect((window.body as { total: number }).total).toBe(4);
    const none = await list(`customer=${customer.id}&created_at[before]=2000-01-01`);
    expect((none.body as { total: number }).total).toBe(0);

    expectError(await list('filters[amount][conditions][$is]=1'), 400, 'invalid_query_params');
    expectError(await list('filters[voucher_code][conditions][$near]=A'), 400, 'invalid_query_params');
    expectError(await list('order=amount'), 400, 'invalid_query_params');
  });

  test('when a loyalty card pays through a COIN reward, then its redemption shows the reward, and the rollback too', async () => {
    const club = (await ctx.client.POST('/v1/loyalties', { body: { name: unique('Coin club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } })).data!;
    const coin = (await ctx.client.POST('/v1/rewards', { body: { name: unique('Pay with points'), type: 'COIN', parameters: { coin: { exchange_ratio: 100, points_ratio: 10 } } } })).data!;
    const assignment = (await ctx.client.POST('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: coin.id } }, body: { campaign: club.id! } })).data!;
    const sourceId = unique('coin-member');
    const card = (await ctx.client.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: club.id! } }, body: { customer: { source_id: sourceId, name: 'Coin Holder' } } })).data!;
    await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: card.code! } }, body: { points: 100 } });
    const redeemed = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: card.code!, reward: { id: assignment.id } }], order: { amount: 5000 } } });
    expect(redeemed.response.status).toBe(200);
    const child = redeemed.data!.redemptions![0]!;
    expect(child).toMatchObject({
      amount: 1000,
      loyalty_card: { points: 100 },
      reward: {
        id: coin.id,
        type: 'COIN',
        object: 'reward',
        parameters: { coin: { exchange_ratio: 100, points_ratio: 10 } },
        assignment_id: assignment.id,
        customer: { id: card.holder_id, name: 'Coin Holder', source_id: sourceId, object: 'customer' },
        voucher: null,
        product: null,
        sku: null,
        loyalty_tier_id: null,
      },
    });
    const rolled = await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: child.id } } });
    expect(rolled.data).toMatchObject({ redemption: child.id, loyalty_card: { points: 100 }, reward: { id: coin.id } });
  });
});

