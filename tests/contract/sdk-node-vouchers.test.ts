/**
 * The Node.js SDK `voucherify` 5.2.0, unmodified: its voucher, redemption and distribution methods.
 * Each scenario calls the SDK as its README shows, with every field the call can carry, and checks what
 * the server keeps. Setup the SDK has no method for (categories, stacked redemptions) goes through the
 * typed client.
 */
import { describe, expect, test } from '@jest/globals';
import { dataMethods } from './sdk-data-methods.js';
import { expectAllCalled, inventoryOf, refusal, useNodeSdk, type Body, type Query, type Reply } from './sdk-node.js';
import { known } from './known.js';
import { expectError } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';
import { legacyMethods } from './sdk-legacy-scope.js';

const ctx = useTarget();
const node = useNodeSdk(ctx);

type Discount = NonNullable<Body<'create-voucher'>['discount']>;
type Voucher = Reply<'get-voucher'>;

async function category(): Promise<{ id: string; name: string }> {
  const name = unique('SDK node category');
  const made = await ctx.client.POST('/v1/categories', { body: { name, hierarchy: 1 } });
  return { id: made.data!.id, name };
}

async function rule(minimumAmount: number): Promise<string> {
  const made = await ctx.client.POST('/v1/validation-rules', {
    body: { name: unique('SDK node minimum'), rules: { '1': { name: 'order.amount', conditions: { $more_than_or_equal: [minimumAmount] }, rules: {} }, logic: '1' } },
  });
  return made.data!.id;
}

/** A discount campaign without vouchers yet, made through the SDK. */
async function emptyCampaign(): Promise<{ id: string; name: string }> {
  const made = await node.sdk.campaigns.create({
    name: unique('SDK node campaign'),
    campaign_type: 'DISCOUNT_COUPONS',
    type: 'AUTO_UPDATE',
    voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
  });
  return { id: made.id!, name: made.name! };
}

async function redeem(code: string, customerSourceId: string, amount: number): Promise<string> {
  const made = await ctx.client.POST('/v1/redemptions', {
    body: { redeemables: [{ object: 'voucher', id: code }], order: { amount }, customer: { source_id: customerSourceId } },
  });
  expect(made.response.status).toBe(200);
  return made.data!.redemptions![0]!.id;
}

describe('the Node.js SDK: vouchers', () => {
  test('when a voucher is created with every field, then get and a list filtered by every parameter show it as sent', async () => {
    const { sdk } = node;
    const shelf = await category();
    const ruleId = await rule(1000);
    const campaign = await emptyCampaign();
    const code = unique('NODE');
    const discount = {
      type: 'PERCENT',
      percent_off: 20,
      percent_off_formula: '20',
      amount_limit: 3000,
      aggregated_amount_limit: 3000,
      effect: 'APPLY_TO_ORDER',
      is_dynamic: false,
    } satisfies Required<Extract<Discount, { type: 'PERCENT' }>>;
    const voucher = {
      code,
      type: 'DISCOUNT_VOUCHER',
      // The campaign by name and by ID (the same one); a discount voucher has none of the other kinds' values.
      campaign: campaign.name,
      campaign_id: campaign.id,
      category: shelf.name,
      category_id: shelf.id,
      discount,
      gift: null,
      loyalty_card: null,
      start_date: '2020-01-01T00:00:00.000Z',
      expiration_date: '2099-12-31T23:59:59.000Z',
      validity_timeframe: { interval: 'P1D', duration: 'P1D' },
      validity_day_of_week: [0, 1, 2, 3, 4, 5, 6],
      validity_hours: { daily: [{ start_time: '00:00', expiration_time: '23:59', days_of_week: [0, 1, 2, 3, 4, 5, 6] }] },
      active: true,
      additional_info: 'Printed on the autumn flyer',
      metadata: { shelf: 'A', printed: true },
      redemption: { quantity: 3 },
      validation_rules: [ruleId],
    } satisfies Required<Body<'create-voucher'>>;
    const created: Voucher = await sdk.vouchers.create(voucher);
    expect(created).toMatchObject({
      code,
      type: 'DISCOUNT_VOUCHER',
      campaign: campaign.name,
      campaign_id: campaign.id,
      category_id: shelf.id,
      discount,
      start_date: voucher.start_date,
      expiration_date: voucher.expiration_date,
      validity_timeframe: voucher.validity_timeframe,
      validity_day_of_week: voucher.validity_day_of_week,
      validity_hours: voucher.validity_hours,
      active: true,
      additional_info: voucher.additional_info,
      metadata: voucher.metadata,
      redemption: { quantity: 3, redeemed_quantity: 0 },
      object: 'voucher',
    });
    expect(created.categories?.map((entry) => entry.id)).toEqual([shelf.id]);
    expect(created.validation_rules_assignments?.data?.map((entry) => entry.rule_id)).toEqual([ruleId]);

    const read: Voucher = await sdk.vouchers.get(code);
    expect(read).toEqual(created);

    const holder = unique('node-holder');
    await sdk.distributions.publications.create({ customer: { source_id: holder }, voucher: code });
    const everyFilter = {
      limit: 10,
      page: 1,
      category: shelf.name,
      campaign_id: campaign.id,
      campaign: campaign.name,
      customer: holder,
      created_at: { after: '2020-01-01', before: '2999-01-01T00:00:00Z' },
      updated_at: { after: '2020-01-01', before: '2999-01-01T00:00:00Z' },
      order: 'code',
      code,
      ids: [known(created, 'id').id],
      filters: { junction: 'and', code: { conditions: { $is: code } }, 'metadata.shelf': { conditions: { $in: ['A', 'B'] } } },
    } satisfies Required<Query<'list-vouchers'>>;
    const listed: Reply<'list-vouchers'> = await sdk.vouchers.list(everyFilter);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'vouchers', total: 1 });
    expect(known(listed, 'vouchers').vouchers.map((entry) => entry.code)).toEqual([code]);
  });

  test('when a voucher is updated with every field, then the change is kept, and a voucher read back can be sent back whole', async () => {
    const { sdk } = node;
    const code = unique('NODE');
    await sdk.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 }, metadata: { shelf: 'A' } });
    const shelf = await category();
    const changes = {
      code,
      type: 'DISCOUNT_VOUCHER',
      category: shelf.name,
      category_id: shelf.id,
      discount: { type: 'AMOUNT', amount_off: 700, effect: 'APPLY_TO_ORDER' },
      start_date: '2021-06-01T00:00:00.000Z',
      expiration_date: '2098-06-01T00:00:00.000Z',
      validity_timeframe: null,
      validity_day_of_week: [1, 2, 3, 4, 5],
      validity_hours: null,
      active: false,
      additional_info: 'Moved to the counter',
      metadata: { shelf: 'B' },
      redemption: { quantity: 5 },
    } satisfies Required<Body<'update-voucher'>>;
    const updated: Voucher = await sdk.vouchers.update(changes);
    expect(updated).toMatchObject({
      code,
      category_id: shelf.id,
      discount: { type: 'AMOUNT', amount_off: 700 },
      start_date: changes.start_date,
      expiration_date: changes.expiration_date,
      validity_timeframe: null,
      validity_day_of_week: [1, 2, 3, 4, 5],
      validity_hours: null,
      active: false,
      additional_info: changes.additional_info,
      metadata: { shelf: 'B' },
      redemption: { quantity: 5 },
      updated_at: expect.any(String),
    });
    expect(await sdk.vouchers.get(code)).toEqual(updated);

    // The usual read-modify-write: the whole voucher as get returned it, one field changed.
    const whole = await sdk.vouchers.get(code);
    const again: Voucher = await sdk.vouchers.update({ ...(whole as Body<'update-voucher'>), code, additional_info: 'Back on the shelf' });
    expect(again).toMatchObject({ code, additional_info: 'Back on the shelf', discount: { amount_off: 700 }, active: false, metadata: { shelf: 'B' } });
  });

  test('when a voucher is disabled and enabled by its code, then validations follow its state', async () => {
    const { sdk } = node;
    const code = unique('NODE');
    await sdk.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } });
    // The SDK sends a JSON `null` body with these two calls.
    const disabled: Voucher = await sdk.vouchers.disable(code);
    expect(disabled).toMatchObject({ code, active: false });
    const whileDisabled = await ctx.client.POST('/v1/validations', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 } } });
    expect(whileDisabled.data).toMatchObject({ valid: false });
    const enabled: Voucher = await sdk.vouchers.enable(code);
    expect(enabled).toMatchObject({ code, active: true });
    expect(await sdk.vouchers.get(code)).toMatchObject({ active: true });
    const whileEnabled = await ctx.client.POST('/v1/validations', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 } } });
    expect(whileEnabled.data).toMatchObject({ valid: true, order: { discount_amount: 500 } });
  });

  test('when a JSON null body comes with a call that takes no body, then it counts as none; where a body is taken, it is refused', async () => {
    const code = unique('NODE');
    await node.sdk.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } });
    // What the SDK's `request` writes for a call without a body when it sends JSON.
    const disabled = await raw(ctx.target, 'POST', `/v1/vouchers/${code}/disable`, { body: 'null' });
    expect(disabled).toMatchObject({ status: 200, body: { code, active: false } });
    expectError(await raw(ctx.target, 'PUT', `/v1/vouchers/${code}`, { body: 'null' }), 400, 'invalid_payload');
    // Optional there: a null body is still not an object.
    expectError(await raw(ctx.target, 'POST', `/v1/redemptions/${unique('r')}/rollback`, { body: 'null' }), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'POST', `/v1/vouchers/${code}/enable`, { body: '"yes"' }), 400, 'invalid_payload');
    expect(await node.sdk.vouchers.get(code)).toMatchObject({ active: false });
  });

  test('when credit is added to a gift card and points to a loyalty card with every field, then their balances move', async () => {
    const { sdk } = node;
    const gift = unique('NODE-GIFT');
    await sdk.vouchers.create({ code: gift, type: 'GIFT_VOUCHER', gift: { amount: 10000 } });
    // `points` is for loyalty cards only (sent below); a gift card takes `amount`.
    const credit = {
      amount: 2500,
      source_id: unique('topup'),
      reason: 'Birthday top-up',
      expiration_type: null,
      expiration_date: null,
    } satisfies Required<Omit<Body<'update-voucher-balance'>, 'points'>>;
    const giftBalance: Reply<'update-voucher-balance'> = await sdk.vouchers.balance.create(gift, credit);
    expect(giftBalance).toMatchObject({ amount: 2500, total: 12500, balance: 12500, type: 'gift_voucher', object: 'balance' });
    expect(await sdk.vouchers.get(gift)).toMatchObject({ gift: { amount: 12500, balance: 12500 } });

    const card = unique('NODE-CARD');
    await sdk.vouchers.create({ code: card, type: 'LOYALTY_CARD', loyalty_card: { points: 100 } });
    // A loyalty card takes either `points` or `amount`, not both.
    const points = {
      points: 40,
      source_id: unique('points'),
      reason: 'Survey answered',
      expiration_type: 'PROGRAM_RULES',
      expiration_date: null,
    } satisfies Required<Omit<Body<'update-voucher-balance'>, 'amount'>>;
    const cardBalance: Reply<'update-voucher-balance'> = await sdk.vouchers.balance.create(card, points);
    expect(cardBalance).toMatchObject({ amount: 40, total: 140, balance: 140, type: 'loyalty_card', object: 'balance' });
    expect(await sdk.vouchers.get(card)).toMatchObject({ loyalty_card: { points: 140, balance: 140 } });
  });

  test('when a voucher is deleted with and without force, then it is gone; binned, its code stays taken; forced, it is free', async () => {
    const { sdk } = node;
    const binned = unique('NODE');
    await sdk.vouchers.create({ code: binned, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } });
    // The SDK always sends `force` (false here): the voucher goes to the bin, which keeps its code.
    await sdk.vouchers.delete(binned);
    expect(await refusal(sdk.vouchers.get(binned))).toMatchObject({ code: 404, key: 'not_found' });
    expect(await refusal(sdk.vouchers.create({ code: binned, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 200 } }))).toMatchObject({ code: 409 });
    const code = unique('NODE');
    await sdk.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } });
    await sdk.vouchers.delete(code, { force: true });
    expect(await refusal(sdk.vouchers.get(code))).toMatchObject({ code: 404, key: 'not_found' });
    await sdk.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 200 } });
    await sdk.vouchers.delete(code, { force: true });
    expect(await refusal(sdk.vouchers.get(code))).toMatchObject({ code: 404, key: 'not_found' });
    expect(await refusal(sdk.vouchers.delete(code, { force: true }))).toMatchObject({ code: 404, key: 'not_found' });
  });

  test('when the SDK is used with callbacks, then the callback gets the voucher or the error', async () => {
    const { sdk } = node;
    const code = unique('NODE');
    await sdk.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } });
    const found = await new Promise<Voucher | undefined>((resolve, reject) => sdk.vouchers.get(code, (error, result) => (error ? reject(error) : resolve(result))));
    expect(found).toMatchObject({ code, object: 'voucher' });
    const missing = await new Promise<unknown>((resolve) => sdk.vouchers.get(unique('NODE-NONE'), (error) => resolve(error)));
    expect(missing).toMatchObject({ code: 404, key: 'not_found', message: expect.any(String) });
  });
});

describe('the Node.js SDK: redemptions', () => {
  test('when a voucher is redeemed, then the redemption lists find it by every filter, and rollbacks undo it', async () => {
    const { sdk } = node;
    const campaign = await emptyCampaign();
    const code = unique('NODE');
    await sdk.vouchers.create({ code, campaign_id: campaign.id, discount: { type: 'AMOUNT', amount_off: 1000 }, redemption: { quantity: 5 } });
    // A redemption counts for a customer who exists.
    const customer = unique('node-buyer');
    await sdk.customers.create({ source_id: customer, name: 'Node Buyer' });
    const first = await redeem(code, customer, 5000);
    const second = await redeem(code, customer, 6000);

    const forVoucher: Reply<'get-voucher-redemptions'> = await sdk.redemptions.getForVoucher(code);
    expect(forVoucher).toMatchObject({ object: 'list', data_ref: 'redemption_entries', quantity: 5, redeemed_quantity: 2, total: 2 });
    expect(known(forVoucher, 'redemption_entries').redemption_entries.map((entry) => entry.id).sort()).toEqual([first, second].sort());

    const everyFilter = {
      limit: 10,
      page: 1,
      result: 'SUCCESS',
      campaign: campaign.name,
      customer,
      order: 'created_at',
      created_at: { after: '2020-01-01' },
      filters: { junction: 'and', voucher_code: { conditions: { $is: code } } },
    } satisfies Required<Query<'list-redemptions'>>;
    const listed: Reply<'list-redemptions'> = await sdk.redemptions.list(everyFilter);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'redemptions', total: 2 });
    expect(known(listed, 'redemptions').redemptions.map((entry) => entry.id)).toEqual([first, second]);

    // An object: `reason` and `tracking_id` go in the query (each URL-encoded twice by the SDK, so they are
    // kept plain here), `customer` in the body.
    const undone: Reply<'rollback-redemption'> = await sdk.redemptions.rollback(first, { reason: 'returned', tracking_id: unique('track'), customer: { source_id: customer } });
    expect(undone).toMatchObject({ redemption: first, reason: 'returned', result: 'SUCCESS', object: 'redemption_rollback' });
    // A string is the reason alone.
    const undoneToo: Reply<'rollback-redemption'> = await sdk.redemptions.rollback(second, 'cancelled');
    expect(undoneToo).toMatchObject({ redemption: second, reason: 'cancelled', result: 'SUCCESS' });
    expect(await sdk.vouchers.get(code)).toMatchObject({ redemption: { redeemed_quantity: 0 } });
    expect(await refusal(sdk.redemptions.rollback(second))).toMatchObject({ code: 400, key: 'already_rolled_back' });
  });
});

describe('the Node.js SDK: distributions', () => {
  test('when vouchers are published by code and from a campaign with every field, then the publication list finds them by every filter', async () => {
    const { sdk } = node;
    const code = unique('NODE');
    await sdk.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 300 } });
    const customer = unique('node-reader');
    // A publication names either a code or a campaign: one of each.
    const byCode = {
      customer: { source_id: customer, name: 'Jane Reader', email: 'jane.reader@example.com' },
      voucher: code,
      source_id: unique('node-publication'),
      channel: 'Newsletter',
      metadata: { issue: 42 },
    } satisfies Required<Omit<Body<'create-publication'>, 'campaign'>>;
    const published: Reply<'create-publication'> = await sdk.distributions.publications.create(byCode);
    expect(published).toMatchObject({ source_id: byCode.source_id, channel: 'Newsletter', metadata: { issue: 42 }, result: 'SUCCESS', object: 'publication' });
    expect(published.voucher).toMatchObject({ code });
    const customerId = known(published, 'customer_id').customer_id;
    expect(await sdk.vouchers.get(code)).toMatchObject({ holder_id: customerId });
    expect(await sdk.customers.get(customer)).toMatchObject({ id: customerId, name: 'Jane Reader', email: 'jane.reader@example.com' });

    const campaign = await sdk.campaigns.create({
      name: unique('SDK node newsletter'),
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'STATIC',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 400 } },
      vouchers_count: 3,
    });
    const fromCampaign = {
      customer: { id: customerId },
      campaign: { name: campaign.name!, count: 1 },
      source_id: unique('node-publication'),
      channel: null,
      metadata: null,
    } satisfies Required<Omit<Body<'create-publication'>, 'voucher'>>;
    const next: Reply<'create-publication'> = await sdk.distributions.publications.create(fromCampaign);
    expect(next).toMatchObject({ campaign_id: campaign.id, channel: 'API', customer_id: customerId, result: 'SUCCESS' });
    const campaignCode = known(known(next, 'voucher').voucher, 'code').code;
    expect(await sdk.vouchers.get(campaignCode)).toMatchObject({ campaign_id: campaign.id, holder_id: customerId });

    const everyFilter = {
      limit: 10,
      page: 1,
      customer,
      campaign: campaign.name!,
      voucher: campaignCode,
      result: 'SUCCESS',
      voucher_type: 'discount',
      is_referral_code: false,
      source_id: fromCampaign.source_id,
      order: '-created_at',
      filters: { junction: 'and', customer_id: { conditions: { $is: customerId } } },
    } satisfies Required<Query<'list-publications'>>;
    const listed: Reply<'list-publications'> = await sdk.distributions.publications.list(everyFilter);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'publications', total: 1 });
    expect(known(listed, 'publications').publications.map((entry) => entry.id)).toEqual([next.id]);
    const ofCustomer: Reply<'list-publications'> = await sdk.distributions.publications.list({ customer, order: 'created_at' });
    expect(known(ofCustomer, 'publications').publications.map((entry) => entry.id)).toEqual([published.id, next.id]);
  });
});

describe('the Node.js SDK: coverage', () => {
  test('every method of vouchers, redemptions and distributions that reaches the contract was called', () => {
    // `redemptions.redeem` (one voucher) is sdk-node-legacy.test.ts's; voucher imports and exports are called
    // in sdk-node-data.test.ts.
    const elsewhere = [...legacyMethods('voucherify'), ...dataMethods('voucherify')];
    expectAllCalled(node.calls, inventoryOf(['vouchers', 'redemptions', 'distributions']).filter((name) => !elsewhere.includes(name)));
    // Methods the inventory misses (it reads one `this.client.<verb>(` line at a time): `rollback` writes its
    // path on the next line, and the publications methods call `client.<verb>(` from a closure.
    expectAllCalled(node.calls, ['redemptions.rollback', 'distributions.publications.create', 'distributions.publications.list']);
  });
});
