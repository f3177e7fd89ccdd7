/**
 * The Node.js SDK `voucherify` 5.2.0, unmodified: its deprecated single-object methods, validating and
 * redeeming one voucher or promotion tier and validating promotions. Each scenario calls the SDK as its README
 * shows, with every field the call can carry, and checks what the server did. Setup the SDK has no method
 * for goes through the typed client.
 */
import { describe, expect, test } from '@jest/globals';
import { expectAllCalled, refusal, useNodeSdk, type Body, type Reply } from './sdk-node.js';
import { legacyMethods } from './sdk-legacy-scope.js';
import { unique, useTarget } from './target.js';

const ctx = useTarget();
const node = useNodeSdk(ctx);

async function buyer(): Promise<{ id: string; source_id: string }> {
  const made = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('node-legacy-buyer'), name: 'Node Legacy Buyer' } })).data!;
  return { id: made.id!, source_id: made.source_id! };
}

/** The customer fields every request here can carry, for a customer that exists. */
function customerFields(known: { id: string; source_id: string }) {
  return {
    id: known.id,
    source_id: known.source_id,
    name: 'Node Legacy Buyer',
    description: 'Shops through the Node.js SDK',
    email: `${known.source_id}@example.com`,
    phone: '+48 600 100 300',
    birthday: '1991-05-03',
    birthdate: '1991-05-03',
    address: { city: 'Gdansk', state: 'Pomerania', line_1: 'Dluga 1', line_2: 'Flat 4', country: 'Poland', postal_code: '80-831' },
    metadata: { segment: 'node' },
    // Accepted and ignored, as a customer sent back whole may carry it.
    object: 'customer',
  } satisfies Required<NonNullable<Body<'validate-voucher'>['customer']>>;
}

/** An order's fields as the deprecated operations take them (the buyer inside the order included). */
function orderFields(known: { id: string; source_id: string }, amount: number) {
  return {
    source_id: unique('node-legacy-order'),
    status: 'CREATED',
    amount,
    // Computed by the service: accepted and ignored.
    initial_amount: amount,
    discount_amount: 0,
    items: [{ quantity: 2, price: amount / 2, amount }],
    metadata: { till: 8 },
    created_at: '2026-01-01T00:00:00.000Z',
    customer: { source_id: known.source_id },
    customer_id: known.id,
    referrer: null,
    referrer_id: null,
  } satisfies Omit<Required<NonNullable<Body<'validate-voucher'>['order']>>, 'id'>;
}

describe('the Node.js SDK: deprecated single-object methods', () => {
  test('when a voucher is validated and redeemed with every field, then the engine answers both, and a session carries over', async () => {
    const { sdk } = node;
    const known = await buyer();
    const code = unique('NODE-LEGACY');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 }, redemption: { quantity: 1 } } });
    const key = unique('ssn_node');
    const context = {
      customer: customerFields(known),
      order: orderFields(known, 4000),
      // A discount voucher pays with neither: these are for gift and loyalty cards, and are ignored here.
      gift: { credits: 100 },
      reward: { id: unique('rew_unused'), assignment_id: unique('rewa_unused'), points: 10 },
      session: { key, type: 'LOCK', ttl: 30, ttl_unit: 'MINUTES' },
      tracking_id: unique('track-node'),
      metadata: { channel: 'node' },
      options: { expand: ['category'] },
    } satisfies Required<Body<'validate-voucher'>>;
    const verdict: Reply<'validate-voucher'> = await sdk.validations.validateVoucher(code, context);
    expect(verdict).toMatchObject({ valid: true, code, discount: { type: 'PERCENT', percent_off: 10 }, order: { amount: 4000, discount_amount: 400 }, session: { key } });
    // The session holds the voucher's only redemption: another request is refused, the session's own is not.
    expect(await sdk.validations.validateVoucher(code, { order: { amount: 4000 } })).toMatchObject({ valid: false, error: { key: 'quantity_exceeded' } });

    const redemptionContext = {
      customer: customerFields(known),
      order: orderFields(known, 4000),
      gift: { credits: 100 },
      reward: { id: unique('rew_unused'), assignment_id: unique('rewa_unused'), points: 10 },
      session: { key },
      metadata: { channel: 'node' },
      options: { expand: ['category'] },
    } satisfies Required<Body<'redeem-voucher'>>;
    expect(await refusal(sdk.redemptions.redeem(code, { order: { amount: 4000 } }))).toMatchObject({ code: 400, key: 'quantity_exceeded' });
    const redemption: Reply<'redeem-voucher'> = await sdk.redemptions.redeem(code, redemptionContext);
    expect(redemption).toMatchObject({ object: 'redemption', result: 'SUCCESS', amount: 400, customer_id: known.id, voucher: { code, redemption: { redeemed_quantity: 1 } }, metadata: { channel: 'node' } });
  });

  test('when a voucher is redeemed in the older form, then the code comes from the context and the tracking ID from the query', async () => {
    const { sdk } = node;
    const code = unique('NODE-LEGACY-OLD');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'GIFT_VOUCHER', gift: { amount: 2000 } } });
    const tracking = unique('track-node-old');
    const redemption: Reply<'redeem-voucher'> = await sdk.redemptions.redeem({ voucher: code, order: { amount: 1500 }, gift: { credits: 1500 } }, tracking);
    expect(redemption).toMatchObject({ result: 'SUCCESS', tracking_id: tracking, gift: { amount: 1500 }, voucher: { code, gift: { balance: 500 } } });
  });

  test('when promotions are validated and a tier redeemed with every field, then the tiers that apply are listed and the tier counts its redemption', async () => {
    const { sdk } = node;
    const known = await buyer();
    const promotion = await ctx.client.POST('/v1/campaigns', {
      body: { name: unique('Node legacy promotion'), campaign_type: 'PROMOTION', promotion: { tiers: [{ name: 'Two off', action: { discount: { type: 'AMOUNT', amount_off: 200 } }, metadata: { node: true } }] } },
    });
    const tier = promotion.data!.promotion!.tiers![0]!.id!;
    const context = {
      customer: customerFields(known),
      order: orderFields(known, 3000),
      metadata: { channel: 'node' },
      options: { expand: ['category'] },
    } satisfies Required<Body<'validate-promotions'>>;
    const validated: Reply<'validate-promotions'> = await sdk.promotions.validate(context);
    expect(validated).toMatchObject({ valid: true, tracking_id: expect.stringMatching(/^track_/) });
    expect(validated.promotions!.find((entry) => entry.id === tier)).toMatchObject({ valid: true, discount_amount: 200, order: { total_amount: 2800 }, categories: null });

    const redemptionContext = {
      customer: customerFields(known),
      order: orderFields(known, 3000),
      metadata: { channel: 'node' },
    } satisfies Required<Body<'redeem-promotion'>>;
    const redemption: Reply<'redeem-promotion'> = await sdk.promotions.tiers.redeem(tier, redemptionContext);
    expect(redemption).toMatchObject({ result: 'SUCCESS', amount: 200, related_object_type: 'promotion_tier', promotion_tier: { id: tier, summary: { redemptions: { total_redeemed: 1 } } } });
  });

  test('every deprecated single-object method that reaches the contract was called', () => {
    expectAllCalled(node.calls, legacyMethods('voucherify'));
    expect(legacyMethods('voucherify')).toEqual(['promotions.tiers.redeem', 'promotions.validate', 'redemptions.redeem', 'validations.validateVoucher']);
  });
});
