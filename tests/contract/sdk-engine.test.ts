/**
 * `@voucherify/sdk` 2.9.0, unmodified, for the engine: publications, validations, redemptions,
 * qualifications, promotions with their tiers, and orders. Every method whose operation is in the contract is
 * called the way an integrator would, with every field its request type declares (typed with the SDK's own
 * types; `Every<…>` requires every field at every depth, so a field the SDK declares and the test leaves
 * out fails to compile), and what comes back is read through the SDK's declared response type.
 */
import { describe, expect, test } from '@jest/globals';
import sdk from '@voucherify/sdk';
import type {
  DistributionsPublicationsCreateParams,
  DistributionsPublicationsCreateResponse,
  DistributionsPublicationsListParams,
  DistributionsPublicationsListResponse,
  OrdersCreate,
  OrdersCreateResponse,
  OrdersListParams,
  OrdersListResponse,
  OrdersUpdate,
  PromotionsCreate,
  PromotionsCreateResponse,
  PromotionTier,
  PromotionTiersCreateParams,
  PromotionTiersListAllParams,
  PromotionTiersListAllResponse,
  PromotionTiersUpdateParams,
  QualificationsCheckEligibilityResponseBody,
  Redemption,
  RedemptionsGetForVoucherResponse,
  RedemptionsListParams,
  RedemptionsListResponse,
  RedemptionsRedeemStackableResponse,
  RedemptionsRollbackParams,
  RedemptionsRollbackResponse,
  ValidationValidateStackableResponse,
} from '@voucherify/sdk';
import { recording } from './sdk-methods.js';
import { dataMethods } from './sdk-data-methods.js';
import { catalog, customer, customerRequest, orderItem, qualification, refusal, stackable, uncalled, type Every } from './sdk-requests.js';
import { unique, useTarget } from './target.js';
import { legacyMethods } from './sdk-legacy-scope.js';

const { VoucherifyServerSide, DiscountVouchersTypesEnum } = sdk;

const ctx = useTarget();
const calls = new Set<string>();

/** The namespaces this file covers, as `voucherifySdkMethods` names them (`promotions.stack` has sdk-segments-stacks.test.ts). */
const NAMESPACES = ['distributions', 'distributions.publications', 'validations', 'redemptions', 'qualifications', 'promotions', 'promotions.tiers', 'orders'];

function client() {
  const { appId, appToken } = ctx.target.credentials;
  return recording(VoucherifyServerSide({ applicationId: appId, secretKey: appToken, apiUrl: ctx.target.baseUrl }), calls);
}

describe('@voucherify/sdk orders', () => {
  test('when an order is created with every field the SDK declares, then it is kept, and an update and the list follow', async () => {
    const sdkClient = client();
    const goods = await catalog(ctx.client);
    const buyer = await customer(ctx.client);
    const sourceId = unique('sdk-order');
    const body = {
      source_id: sourceId,
      status: 'CREATED',
      customer: customerRequest(buyer, 'Ada Buyer'),
      amount: 5000,
      discount_amount: 0,
      items: [orderItem(goods, 2)],
      metadata: { till: 4 },
    } satisfies Every<OrdersCreate>;
    const created: OrdersCreateResponse = await sdkClient.orders.create(body);
    expect(created).toMatchObject({
      object: 'order',
      source_id: sourceId,
      status: 'CREATED',
      amount: 5000,
      discount_amount: 0,
      total_amount: 5000,
      metadata: { till: 4 },
    });
    expect(created.id).toMatch(/^ord_/);
    expect(created.items).toEqual([
      expect.objectContaining({ sku_id: goods.sku.id, product_id: goods.product.id, related_object: 'sku', quantity: 2, price: 2500, amount: 5000, metadata: { gift_wrap: true }, object: 'order_item' }),
    ]);
    expect(created.customer).toMatchObject({ id: buyer.id });

    const read: OrdersCreateResponse = await sdkClient.orders.get(created.id);
    expect(read).toMatchObject({ id: created.id, source_id: sourceId, amount: 5000 });

    const change = {
      id: created.id,
      source_id: sourceId,
      status: 'PAID',
      items: [orderItem(goods, 3)],
      amount: 7500,
      discount_amount: 0,
      metadata: { till: 5 },
      customer: { id: buyer.id },
    } satisfies Every<OrdersUpdate>;
    const updated: OrdersCreateResponse = await sdkClient.orders.update(change);
    expect(updated).toMatchObject({ id: created.id, source_id: sourceId, status: 'PAID', amount: 7500, total_amount: 7500, metadata: { till: 5 } });
    expect(updated.items?.[0]).toMatchObject({ quantity: 3, amount: 7500 });
    expect(updated.updated_at).toEqual(expect.any(String));
    // The SDK's update sends to the order's ID, or its source ID when it has no ID.
    const bySource = await sdkClient.orders.update({ source_id: sourceId, status: 'FULFILLED' } as OrdersUpdate);
    expect(bySource).toMatchObject({ id: created.id, status: 'FULFILLED' });

    const query = { limit: 100, page: 1 } satisfies Every<OrdersListParams>;
    const listed: OrdersListResponse = await sdkClient.orders.list(query);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'orders' });
    // A shared target may hold more than a page of orders, and the SDK cannot choose the order: read on until
    // this one comes (pages stop at 100, as the API's do).
    let found = listed.orders.find((order) => order.id === created.id);
    for (let page = 2; !found && page <= 100; page += 1) {
      const next = await sdkClient.orders.list({ limit: 100, page });
      if (next.orders.length === 0) break;
      found = next.orders.find((order) => order.id === created.id);
    }
    expect(found).toMatchObject({ status: 'FULFILLED', amount: 7500 });
    const small = await sdkClient.orders.list({ limit: 1, page: 1 });
    expect(small.orders).toHaveLength(1);
    // Orders are never deleted, and other tests may add some between the two calls.
    expect(small.total).toBeGreaterThanOrEqual(listed.total);
  });
});

describe('@voucherify/sdk publications', () => {
  async function coupons(count: number) {
    const made = await ctx.client.POST('/v1/campaigns', {
      body: {
        name: unique('SDK publish'),
        campaign_type: 'DISCOUNT_COUPONS',
        type: 'AUTO_UPDATE',
        voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 400 } },
        vouchers_count: count,
      },
    });
    expect(made.response.status).toBe(200);
    return made.data!;
  }

  test('when a voucher is published from a campaign with every field the SDK declares, then the customer holds it and its source ID names that publication', async () => {
    const sdkClient = client();
    const campaign = await coupons(3);
    const buyer = await customer(ctx.client);
    const sourceId = unique('sdk-publication');
    // By campaign: every field but `voucher`, which names one voucher instead of a campaign (the next test).
    const body = {
      // The SDK sends `join_once` in the body; the API takes it in the query only (`?join_once=true`), so the
      // server ignores it here, as it ignores any field the API does not document.
      join_once: true,
      source_id: sourceId,
      campaign: { name: campaign.name!, count: 1 },
      channel: 'SDK shop',
      customer: customerRequest(buyer, 'Published Person'),
    } satisfies Every<Omit<DistributionsPublicationsCreateParams, 'voucher'>>;
    const published: DistributionsPublicationsCreateResponse = await sdkClient.distributions.publications.create(body);
    expect(published).toMatchObject({ object: 'publication', result: 'SUCCESS', customer_id: buyer.id, channel: 'SDK shop', source_id: sourceId });
    expect(published.id).toMatch(/^pub_/);
    expect(published.voucher).toMatchObject({ campaign: campaign.name, object: 'voucher', holder_id: buyer.id, discount: { type: 'AMOUNT', amount_off: 400 } });
    expect(published.voucher.publish).toMatchObject({ count: 1 });

    // The same source ID is the same publication.
    const again = await sdkClient.distributions.publications.create(body);
    expect(again).toMatchObject({ id: published.id, voucher: { code: published.voucher.code } });
    // A new source ID is a new publication: `join_once` in the body does not hold the customer to the voucher
    // they have (see above), so they get the campaign's next one.
    const second = await sdkClient.distributions.publications.create({ ...body, source_id: unique('sdk-publication') });
    expect(second.id).not.toBe(published.id);
    expect(second.voucher.code).not.toBe(published.voucher.code);
    expect(second.customer_id).toBe(buyer.id);
  });

  test('when a given voucher is published and publications are listed with every query field the SDK declares, then the list narrows to it', async () => {
    const sdkClient = client();
    const campaign = await coupons(2);
    const codes = (await ctx.client.GET('/v1/vouchers', { params: { query: { campaign: campaign.name! } } })).data!.vouchers!.map((voucher) => voucher.code!);
    const buyer = await customer(ctx.client);
    const body = {
      join_once: false,
      source_id: unique('sdk-publication'),
      voucher: codes[0]!,
      channel: 'SDK shop',
      customer: customerRequest(buyer, 'Given Voucher'),
    } satisfies Every<Omit<DistributionsPublicationsCreateParams, 'campaign'>>;
    const published = await sdkClient.distributions.publications.create(body);
    expect(published.voucher.code).toBe(codes[0]);
    await sdkClient.distributions.publications.create({ voucher: codes[1]!, customer: { source_id: unique('sdk-other') } });

    const query = {
      limit: 10,
      page: 1,
      order: '-created_at',
      campaign: campaign.name!,
      customer: buyer.id,
      voucher: codes[0]!,
      result: 'SUCCESS',
      // The SDK declares `GIFT`, `DISCOUNT`, `LOYALTY_CARD` and `LUCKY_DRAW` here; the API takes only
      // `discount` and `loyalty`, and refuses the SDK's values (checked below), so a typed caller must cast.
      voucher_type: 'discount' as 'DISCOUNT',
      is_referral_code: false,
      filters: { junction: 'AND', customer_id: { conditions: { $in: [buyer.id] } } },
    } satisfies Every<DistributionsPublicationsListParams>;
    const listed: DistributionsPublicationsListResponse = await sdkClient.distributions.publications.list(query);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'publications', total: 1 });
    expect(listed.publications?.map((publication) => publication.id)).toEqual([published.id]);
    expect(listed.publications?.[0]).toMatchObject({ customer_id: buyer.id, channel: 'SDK shop', result: 'SUCCESS', voucher: { code: codes[0] } });
    const campaignWide = await sdkClient.distributions.publications.list({ campaign: campaign.name! });
    expect(campaignWide.total).toBe(2);
    expect((await sdkClient.distributions.publications.list({ ...query, result: 'FAILURE' })).total).toBe(0);
    expect(await refusal(sdkClient.distributions.publications.list({ voucher_type: 'DISCOUNT' }))).toEqual({ code: 400, key: 'invalid_query_params' });
  });
});

describe('@voucherify/sdk validations and redemptions', () => {
  test('when four redeemables are validated and redeemed with every field the SDK declares, then the discounts, credits and points add up and are spent', async () => {
    const sdkClient = client();
    const { body, buyer, codes } = await stackable(ctx.client);
    const validation: ValidationValidateStackableResponse = await sdkClient.validations.validateStackable(body);
    expect(validation.valid).toBe(true);
    expect(validation.session).toEqual(body.session);
    expect(validation.redeemables?.map((redeemable) => [redeemable.id, redeemable.status])).toEqual([
      [codes.discount, 'APPLICABLE'],
      [codes.tier, 'APPLICABLE'],
      [codes.gift, 'APPLICABLE'],
      [codes.card, 'APPLICABLE'],
    ]);
    const [, , giftResult, cardResult] = validation.redeemables!;
    expect(giftResult!.result?.gift).toMatchObject({ credits: 1000 });
    expect(cardResult!.result?.loyalty_card).toMatchObject({ points: 100 });
    // The discounts are 500, 300 and the 100 points worth 1000 through the COIN reward; the gift card's 1000 of
    // credit pays part of what is left: 5000 - 1800 - 1000.
    expect(validation.order).toMatchObject({ amount: 5000, discount_amount: 1800, total_amount: 2200 });
    expect(validation.stacking_rules).toMatchObject({ redeemables_limit: expect.any(Number), redeemables_application_mode: expect.any(String) });

    const redeemed: RedemptionsRedeemStackableResponse = await sdkClient.redemptions.redeemStackable(body);
    expect(redeemed.redemptions).toHaveLength(4);
    expect(redeemed.parent_redemption).toMatchObject({ object: 'redemption', result: 'SUCCESS', customer_id: buyer.id, metadata: { campaign_source: 'sdk' } });
    expect(redeemed.redemptions.every((redemption) => redemption.redemption === redeemed.parent_redemption.id)).toBe(true);
    // A redeemed order is paid, whatever status the request gave it.
    expect(redeemed.order).toMatchObject({ amount: 5000, status: 'PAID', metadata: { till: 9 }, source_id: body.order.source_id });
    const giftRedemption = redeemed.redemptions.find((redemption) => redemption.voucher?.code === codes.gift)!;
    expect(giftRedemption.gift).toEqual({ amount: 1000 });
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code: codes.gift } } })).data?.gift).toMatchObject({ balance: 2000 });
    expect((await ctx.client.GET('/v1/loyalties/members/{memberId}', { params: { path: { memberId: codes.card } } })).data?.loyalty_card).toMatchObject({ balance: 100 });
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code: codes.discount } } })).data?.redemption).toMatchObject({ redeemed_quantity: 1 });
  });

  test('when redemptions are read, listed with every query field the SDK declares, and one is rolled back with every field, then each shows', async () => {
    const sdkClient = client();
    const { body, buyer, codes } = await stackable(ctx.client);
    const redeemed = await sdkClient.redemptions.redeemStackable(body);
    const giftRedemption = redeemed.redemptions.find((redemption) => redemption.voucher?.code === codes.gift)!;

    const read: Redemption = await sdkClient.redemptions.get(giftRedemption.id);
    expect(read).toMatchObject({ id: giftRedemption.id, object: 'redemption', result: 'SUCCESS', customer_id: buyer.id, voucher: { code: codes.gift, object: 'voucher' }, gift: { amount: 1000 } });

    const query = {
      limit: 10,
      page: 1,
      result: 'SUCCESS',
      campaign: codes.club,
      customer: buyer.id,
      created_at: { before: '2999-01-01T00:00:00.000Z', after: '2000-01-01T00:00:00.000Z' },
    } satisfies Every<RedemptionsListParams>;
    const listed: RedemptionsListResponse = await sdkClient.redemptions.list(query);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'redemptions', total: 1 });
    expect(listed.redemptions.map((redemption) => redemption.voucher?.code)).toEqual([codes.card]);
    expect((await sdkClient.redemptions.list({ ...query, created_at: { before: '2000-01-01T00:00:00.000Z' } })).total).toBe(0);

    const entries: RedemptionsGetForVoucherResponse = await sdkClient.redemptions.getForVoucher(codes.gift);
    expect(entries).toMatchObject({ object: 'list', total: 1, redeemed_quantity: 1 });
    expect(entries.redemption_entries?.map((entry) => entry.id)).toEqual([giftRedemption.id]);

    const rollback = {
      reason: 'Returned goods',
      tracking_id: unique('sdk-tracking'),
      // The SDK sends the customer in the body (and the reason and tracking ID in the query).
      customer: { id: buyer.id, name: 'Returner', email: `${buyer.source_id}@example.com`, source_id: buyer.source_id, metadata: { returns: 1 }, object: 'customer', description: 'Returned a mug' },
    } satisfies Every<RedemptionsRollbackParams>;
    const rolledBack: RedemptionsRollbackResponse = await sdkClient.redemptions.rollback(giftRedemption.id, rollback);
    expect(rolledBack).toMatchObject({ object: 'redemption_rollback', result: 'SUCCESS', redemption: giftRedemption.id, reason: 'Returned goods', customer_id: buyer.id });
    expect(rolledBack.id).toMatch(/^rr_/);
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code: codes.gift } } })).data?.gift).toMatchObject({ balance: 3000 });
    const after = await sdkClient.redemptions.getForVoucher(codes.gift);
    expect(after.total).toBe(2);
    expect(await refusal(sdkClient.redemptions.rollback(giftRedemption.id, { reason: 'Again' }))).toEqual({ code: 400, key: 'already_rolled_back' });
  });
});

describe('@voucherify/sdk qualifications', () => {
  test('when eligibility is checked with every field the SDK declares, then the redeemables the customer and order qualify for come back', async () => {
    const sdkClient = client();
    const { body, buyer, codes } = await qualification(ctx.client);
    const result: QualificationsCheckEligibilityResponseBody = await sdkClient.qualifications.checkEligibility(body);
    expect(result.redeemables).toMatchObject({ object: 'list', data_ref: 'data' });
    expect(result.redeemables.data.map((redeemable) => redeemable.id).sort()).toEqual([codes.discount, codes.tier].sort());
    const tier = result.redeemables.data.find((redeemable) => redeemable.id === codes.tier)!;
    expect(tier).toMatchObject({ object: 'promotion_tier', result: { discount: { type: 'AMOUNT', amount_off: 300 } } });
    // The SDK's type declares `applicable_to` and `inapplicable_to` on every qualified redeemable; the API
    // documents both as optional, and the reference server, which does not work out per-product targets,
    // leaves them out. `metadata` and `categories` come with `expand` (`redeemable`, `category`).
    expect(tier.categories).toEqual([]);
    expect(tier.metadata).toEqual({});
    expect(tier).toMatchObject({ name: 'Three off', banner: 'Save 3', campaign_name: expect.any(String), validation_rules_assignments: { total: 0 } });
    // BEST_DEAL: the larger discount first.
    expect(result.redeemables.data[0]!.id).toBe(codes.discount);
    expect(result.redeemables.has_more).toBe(false);
    // A known customer is tracked by their own tracking ID; the one given names anonymous customers only.
    expect(result.tracking_id).toBe((await sdkClient.validations.validateStackable({ redeemables: [{ object: 'voucher', id: codes.discount }], customer: { id: buyer.id } })).tracking_id);
    expect(result.tracking_id).not.toBe(body.tracking_id);
    expect(result.order).toMatchObject({ amount: 5000, metadata: { till: 1 } });
    expect(result.stacking_rules).toMatchObject({ redeemables_limit: expect.any(Number), exclusive_categories: expect.any(Array) });
  });
});

describe('@voucherify/sdk promotions', () => {
  test('when a promotion campaign and its tiers are made, read, changed, listed and deleted with every field the SDK declares, then each step is kept', async () => {
    const sdkClient = client();
    const name = unique('SDK promotion');
    const body = {
      name,
      campaign_type: 'PROMOTION',
      start_date: '2025-01-01T00:00:00.000Z',
      expiration_date: '2099-01-01T00:00:00.000Z',
      promotion: {
        tiers: [
          {
            name: 'Ten off',
            banner: 'Save 10',
            action: { discount: { type: DiscountVouchersTypesEnum.AMOUNT, amount_off: 1000, amount_off_formula: '', effect: 'APPLY_TO_ORDER' } },
            metadata: { level: 1 },
          },
        ],
      },
    } satisfies Every<PromotionsCreate>;
    const created: PromotionsCreateResponse = await sdkClient.promotions.create(body);
    expect(created).toMatchObject({ object: 'campaign', name, campaign_type: 'PROMOTION', start_date: body.start_date, expiration_date: body.expiration_date, active: true });
    expect(created.promotion).toMatchObject({ object: 'list', data_ref: 'tiers' });
    expect(created.promotion.tiers).toEqual([
      expect.objectContaining({ name: 'Ten off', banner: 'Save 10', action: { discount: expect.objectContaining({ type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER' }) }, metadata: { level: 1 } }),
    ]);

    const tierBody = {
      name: 'Twenty percent',
      banner: 'Save 20%',
      action: { discount: { type: DiscountVouchersTypesEnum.PERCENT, percent_off: 20, percent_off_formula: '', amount_limit: 5000, effect: 'APPLY_TO_ORDER' } },
      metadata: { level: 2 },
    } satisfies Every<PromotionTiersCreateParams>;
    const tier: PromotionTier = await sdkClient.promotions.tiers.create(created.id, tierBody);
    expect(tier).toMatchObject({ object: 'promotion_tier', name: 'Twenty percent', banner: 'Save 20%', metadata: { level: 2 }, campaign: { id: created.id, object: 'campaign' } });
    expect(tier.action.discount).toMatchObject({ type: 'PERCENT', percent_off: 20, amount_limit: 5000 });
    expect(tier.hierarchy).toBe(2);
    expect(await sdkClient.promotions.tiers.get(tier.id)).toMatchObject({ id: tier.id, name: 'Twenty percent' });

    const change = {
      id: tier.id,
      name: 'Fifteen percent',
      banner: 'Save 15%',
      action: { discount: { type: DiscountVouchersTypesEnum.PERCENT, percent_off: 15, percent_off_formula: '', amount_limit: 4000, effect: 'APPLY_TO_ORDER' } },
      metadata: { level: 3 },
    } satisfies Every<PromotionTiersUpdateParams>;
    const updated: PromotionTier = await sdkClient.promotions.tiers.update(change);
    expect(updated).toMatchObject({ id: tier.id, name: 'Fifteen percent', banner: 'Save 15%', metadata: { level: 3 }, action: { discount: { percent_off: 15, amount_limit: 4000 } } });

    const ofCampaign: PromotionTiersListAllResponse = await sdkClient.promotions.tiers.list(created.id);
    expect(ofCampaign).toMatchObject({ object: 'list', data_ref: 'tiers' });
    expect(ofCampaign.tiers.map((entry) => entry.name)).toEqual(['Ten off', 'Fifteen percent']);

    const query = { is_available: true, limit: 100, page: 1 } satisfies Every<PromotionTiersListAllParams>;
    const all: PromotionTiersListAllResponse = await sdkClient.promotions.tiers.listAll(query);
    expect(all.tiers.map((entry) => entry.id)).toEqual(expect.arrayContaining([tier.id]));
    expect(all.tiers.every((entry) => entry.campaign.active)).toBe(true);
    expect(typeof all.has_more).toBe('boolean');

    await sdkClient.promotions.tiers.delete(tier.id);
    expect(await refusal(sdkClient.promotions.tiers.get(tier.id))).toEqual({ code: 404, key: 'not_found' });
    expect((await sdkClient.promotions.tiers.list(created.id)).tiers.map((entry) => entry.name)).toEqual(['Ten off']);
  });
});

describe('@voucherify/sdk coverage', () => {
  test('every method of publications, validations, redemptions, qualifications, promotions (with tiers) and orders that reaches the contract was called', () => {
    // The deprecated single-object methods of these namespaces are sdk-legacy.test.ts's; order imports and
    // exports are called in sdk-data.test.ts.
    expect(uncalled(calls, NAMESPACES, [...legacyMethods('@voucherify/sdk'), ...dataMethods('@voucherify/sdk')])).toEqual([]);
  });
});
