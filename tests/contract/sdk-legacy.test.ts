/**
 * `@voucherify/sdk` 2.9.0, unmodified, for the deprecated single-object operations and their neighbours:
 * validating and redeeming one voucher or tier, promotions validation, the qualification examinations,
 * validation sessions, a parent's rollbacks and a customer's redeemables (the client side's `redeem` and
 * `publish` are in sdk-legacy-client-side.test.ts). Every
 * method whose operation is in the contract is called with every field its request type declares (typed with
 * the SDK's own types through `Every<…>`), and what comes back is read through the SDK's declared response
 * type.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import sdk from '@voucherify/sdk';
import type {
  CampaignsQualificationsBody,
  CampaignsQualificationsParams,
  CampaignsQualificationsResponse,
  CustomerRedeemablesListQueryParams,
  CustomerRedeemablesListResponse,
  PromotionsValidateParams,
  PromotionsValidateQueryParams,
  PromotionsValidateResponse,
  PromotionTiersRedeemParams,
  PromotionTiersRedeemResponse,
  RedemptionsRedeemBody,
  RedemptionsRedeemResponse,
  RedemptionsRollbackStackableResponse,
  ValidationsValidateVoucherParams,
  ValidationsValidateVoucherResponse,
  VouchersQualificationExamineBody,
  VouchersQualificationExamineParams,
  VouchersQualificationExamineResponse,
} from '@voucherify/sdk';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { LEGACY_OPERATIONS } from './sdk-legacy-scope.js';
import { recording, voucherifySdkMethods } from './sdk-methods.js';
import { catalog, customer, customerRequest, orderItem, refusal, type Every } from './sdk-requests.js';
import { unique, useTarget } from './target.js';

const { VoucherifyServerSide } = sdk;

const ctx = useTarget();
const calls = new Set<string>();

function client() {
  const { appId, appToken } = ctx.target.credentials;
  return recording(VoucherifyServerSide({ applicationId: appId, secretKey: appToken, apiUrl: ctx.target.baseUrl }), calls);
}

/** An order of the target, for requests that name an existing order by ID and source ID. */
async function storedOrder() {
  const made = await ctx.client.POST('/v1/orders', { body: { source_id: unique('sdk-legacy-order'), amount: 5000 } });
  return { id: made.data!.id!, source_id: made.data!.source_id! };
}

/** A loyalty card with 200 points, in a program paying through a COIN reward (10 points for every 1.00). */
async function pointsCard() {
  const club = (await ctx.client.POST('/v1/loyalties', { body: { name: unique('SDK legacy club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } })).data!;
  const coin = (await ctx.client.POST('/v1/rewards', { body: { name: unique('SDK legacy coin'), type: 'COIN', parameters: { coin: { exchange_ratio: 100, points_ratio: 10 } } } })).data!;
  const assignment = (await ctx.client.POST('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: coin.id! } }, body: { campaign: club.id! } })).data!;
  const card = (await ctx.client.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: club.id! } }, body: { customer: { source_id: unique('sdk-legacy-member') } } })).data!;
  await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: card.code! } }, body: { points: 200 } });
  return { card: card.code!, assignment: assignment.id! };
}

/** A promotion tier taking 3.00 off the order. */
async function threeOff() {
  const promotion = await ctx.client.POST('/v1/campaigns', {
    body: { name: unique('SDK legacy promotion'), campaign_type: 'PROMOTION', promotion: { tiers: [{ name: 'Three off', banner: 'Save 3', action: { discount: { type: 'AMOUNT', amount_off: 300 } } }] } },
  });
  return promotion.data!.promotion!.tiers![0]!.id!;
}

describe('@voucherify/sdk deprecated validations and redemptions', () => {
  test('when a gift card is validated with every field and a session, then the session holds its credit until released', async () => {
    const sdkClient = client();
    const goods = await catalog(ctx.client);
    const buyer = await customer(ctx.client);
    const codes = { gift: unique('SDK-SSN-GC') };
    expect((await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code: codes.gift } }, body: { type: 'GIFT_VOUCHER', gift: { amount: 3000 } } })).response.status).toBe(200);
    const order = await storedOrder();
    const key = unique('ssn_sdk_gift');
    const params = {
      customer: { id: buyer.id, source_id: buyer.source_id, name: 'Gift Giver', email: `${buyer.source_id}@example.com`, description: 'Pays with a card', metadata: { tier: 'gold' } },
      order: { id: order.id, source_id: order.source_id, amount: 5000, items: [orderItem(goods, 2)], metadata: { till: 2 } },
      gift: { credits: 2000 },
      // A gift card pays with its credit; the loyalty reward this type also carries is for loyalty cards.
      reward: { id: unique('rew_unused') },
      session: { key, type: 'LOCK', ttl: 20, ttl_unit: 'MINUTES' },
    } satisfies Every<ValidationsValidateVoucherParams>;
    const verdict: ValidationsValidateVoucherResponse = await sdkClient.validations.validateVoucher(codes.gift, params);
    expect(verdict).toMatchObject({ valid: true, code: codes.gift, gift: { amount: 3000, balance: 3000 }, session: { key, type: 'LOCK', ttl: 20, ttl_unit: 'MINUTES' } });
    expect(verdict.order).toMatchObject({ amount: 5000, total_amount: 3000 });
    expect(verdict.tracking_id).toMatch(/^track_/);

    // What the session holds is not there for others: 1000 of the 3000 is left.
    const other: ValidationsValidateVoucherResponse = await sdkClient.validations.validateVoucher(codes.gift, { order: { amount: 5000 }, gift: { credits: 1500 } });
    expect(other).toMatchObject({ valid: false, error: { key: 'gift_amount_exceeded' } });
    await sdkClient.vouchers.releaseValidationSession(codes.gift, key);
    const freed: ValidationsValidateVoucherResponse = await sdkClient.validations.validateVoucher(codes.gift, { order: { amount: 5000 }, gift: { credits: 1500 } });
    expect(freed.valid).toBe(true);
    expect(await refusal(sdkClient.vouchers.releaseValidationSession(codes.gift, key))).toEqual({ code: 404, key: 'not_found' });
  });

  test('when a loyalty card is redeemed with every field, then points pay part of the order, and the parent rolls back whole', async () => {
    const sdkClient = client();
    const goods = await catalog(ctx.client);
    const buyer = await customer(ctx.client);
    const codes = await pointsCard();
    const order = await storedOrder();
    const held = await sdkClient.validations.validateVoucher(codes.card, { order: { amount: 2500 }, reward: { id: codes.assignment }, session: { type: 'LOCK' } });
    const key = held.session!.key!;
    const body = {
      // The SDK also sends `tracking_id` in the body, which the API documents only in the query; it is ignored.
      tracking_id: unique('track-sdk'),
      customer: { id: buyer.id, source_id: buyer.source_id, name: 'Point Payer', email: `${buyer.source_id}@example.com`, description: 'Pays with points', metadata: { tier: 'gold' }, object: 'customer' },
      order: { id: order.id, source_id: order.source_id, amount: 5000, items: [orderItem(goods, 2)], status: 'CREATED', metadata: { till: 3 } },
      metadata: { channel: 'sdk' },
      reward: { id: codes.assignment, assignment_id: codes.assignment, points: 150 },
      // A loyalty card pays with points; the gift credit this type also carries is for gift cards.
      gift: { credits: 500 },
      session: { key },
    } satisfies Every<RedemptionsRedeemBody>;
    const redemption: RedemptionsRedeemResponse = await sdkClient.redemptions.redeem(codes.card, body);
    expect(redemption).toMatchObject({
      object: 'redemption',
      result: 'SUCCESS',
      related_object_type: 'voucher',
      loyalty_card: { points: 150 },
      voucher: { code: codes.card, loyalty_card: { balance: 50 } },
      metadata: { channel: 'sdk' },
    });
    expect(redemption.order).toMatchObject({ amount: 5000, discount_amount: 1500, total_amount: 3500 });
    const parentId = (redemption as RedemptionsRedeemResponse & { redemption: string }).redemption;

    const rolled: RedemptionsRollbackStackableResponse = await sdkClient.redemptions.rollbackStackable(
      parentId,
      { reason: 'Returned', tracking_id: unique('track-sdk'), customer: { source_id: buyer.source_id }, metadata: { desk: 2 } },
      { reason: 'Returned in store' },
    );
    expect(rolled.rollbacks.map((entry) => entry.redemption)).toEqual([redemption.id]);
    expect(rolled.rollbacks[0]).toMatchObject({ loyalty_card: { points: 150 }, voucher: { loyalty_card: { balance: 200 } } });
    expect(rolled.parent_rollback).toMatchObject({ redemption: parentId, result: 'SUCCESS', metadata: { desk: 2 } });
    expect(await refusal(sdkClient.redemptions.rollbackStackable(parentId))).toEqual({ code: 400, key: 'already_rolled_back' });
  });

  test('when promotions are validated and a tier redeemed with every field, then the tier applies and counts its redemption', async () => {
    const sdkClient = client();
    const goods = await catalog(ctx.client);
    const buyer = await customer(ctx.client);
    const codes = { tier: await threeOff() };
    const body = {
      customer: { source_id: buyer.source_id, id: buyer.id, name: 'Promo Shopper', email: `${buyer.source_id}@example.com`, description: 'Looks for deals', metadata: { tier: 'gold' } },
      order: { id: (await storedOrder()).id, source_id: unique('sdk-promo-order'), items: [orderItem(goods, 2)], amount: 5000, metadata: { till: 5 } },
      metadata: { channel: 'sdk' },
    } satisfies Every<PromotionsValidateParams>;
    const query = { audienceRulesOnly: false, filters: { promotion_id: { conditions: { $in: [codes.tier] } } } } satisfies Every<PromotionsValidateQueryParams>;
    const validated: PromotionsValidateResponse = await sdkClient.promotions.validate(body, query);
    expect(validated.valid).toBe(true);
    expect(validated.promotions).toEqual([expect.objectContaining({ id: codes.tier, object: 'promotion_tier', name: 'Three off', banner: 'Save 3', discount_amount: 300 })]);
    expect(validated.promotions![0]!.order).toMatchObject({ amount: 5000, total_amount: 4700 });

    const redeemParams = {
      customer: { id: buyer.id, source_id: buyer.source_id, name: 'Promo Shopper', email: `${buyer.source_id}@example.com`, description: 'Looks for deals', metadata: { tier: 'gold' } },
      order: { id: (await storedOrder()).id, source_id: unique('sdk-promo-redeem'), amount: 5000, items: [orderItem(goods, 2)], status: 'CREATED', metadata: { till: 5 } },
      metadata: { channel: 'sdk' },
      // The SDK sends a session here too, which the API does not document for a tier's redemption; it is ignored.
      session: { key: unique('ssn_tier') },
    } satisfies Every<PromotionTiersRedeemParams>;
    const redeemed: PromotionTiersRedeemResponse = await sdkClient.promotions.tiers.redeem(codes.tier, redeemParams);
    expect(redeemed).toMatchObject({ object: 'redemption', result: 'SUCCESS', promotion_tier: { id: codes.tier, summary: { redemptions: { total_redeemed: 1 } } } });
    expect(redeemed.order).toMatchObject({ amount: 5000, total_discount_amount: 300, total_amount: 4700 });
  });
});

describe('@voucherify/sdk qualification examinations and customer redeemables', () => {
  test('when a customer\'s vouchers and the campaigns are examined with every field, then those that would apply are listed', async () => {
    const sdkClient = client();
    const goods = await catalog(ctx.client);
    const buyer = await customer(ctx.client);
    const coupons = await ctx.client.POST('/v1/campaigns', {
      body: { name: unique('SDK examined'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 400 } }, vouchers_count: 2 },
    });
    const published = await ctx.client.POST('/v1/publications', { body: { customer: { id: buyer.id }, campaign: { name: coupons.data!.name! } } });
    const code = published.data!.voucher!.code!;
    const order = await storedOrder();
    const body = {
      customer: { id: buyer.id, source_id: buyer.source_id, name: 'Examined', email: `${buyer.source_id}@example.com`, description: 'Holds coupons', metadata: { tier: 'gold' } },
      order: { id: order.id, source_id: order.source_id, amount: 5000, items: [orderItem(goods, 2)], metadata: { till: 6 } },
      reward: { id: unique('rew_none'), assignment_id: unique('rewa_none') },
      metadata: { channel: 'sdk' },
    } satisfies Every<VouchersQualificationExamineBody>;
    const params = { audienceRulesOnly: false, order: '-created_at', limit: 10 } satisfies Every<VouchersQualificationExamineParams>;
    const vouchers: VouchersQualificationExamineResponse = await sdkClient.vouchers.qualifications.examine(body, params);
    expect(vouchers).toMatchObject({ object: 'list', data_ref: 'data', total: 1 });
    expect(vouchers.data!.map((entry) => entry.code)).toEqual([code]);

    const campaignsBody = {
      customer: customerRequest(buyer, 'Examined'),
      order: { id: order.id, source_id: order.source_id, items: [orderItem(goods, 2)] },
    } satisfies Every<CampaignsQualificationsBody>;
    const campaignsParams = { audienceRulesOnly: false, order: '-created_at', limit: 50 } satisfies Every<CampaignsQualificationsParams>;
    const campaigns: CampaignsQualificationsResponse = await sdkClient.campaigns.qualifications.examine(campaignsBody, campaignsParams);
    expect(campaigns).toMatchObject({ object: 'list', data_ref: 'data' });
    expect(campaigns.data.map((entry) => entry.id)).toContain(coupons.data!.id);
    expect(campaigns.data.find((entry) => entry.id === coupons.data!.id)).toMatchObject({ name: coupons.data!.name, campaign_type: 'DISCOUNT_COUPONS' });
  });

  test('when a customer\'s redeemables are listed with every parameter, then the vouchers they hold come a page at a time', async () => {
    const sdkClient = client();
    const buyer = await customer(ctx.client);
    const codes: string[] = [];
    for (const amount of [1000, 2000]) {
      const code = unique('SDK-HELD');
      await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'GIFT_VOUCHER', gift: { amount } } });
      await ctx.client.POST('/v1/publications', { body: { customer: { id: buyer.id }, voucher: code } });
      codes.push(code);
    }
    const firstPage = { limit: 1, order: '-id', filters: { junction: 'and', voucher_type: { conditions: { $is: 'GIFT_VOUCHER' } } } } satisfies Every<Omit<CustomerRedeemablesListQueryParams, 'starting_after_id'>>;
    const first: CustomerRedeemablesListResponse = await sdkClient.customers.listRedeemables(buyer.id, firstPage);
    expect(first).toMatchObject({ object: 'list', data_ref: 'data', total: 2, has_more: true });
    const nextPage = { ...firstPage, starting_after_id: first.more_starting_after! } satisfies Every<CustomerRedeemablesListQueryParams>;
    const next: CustomerRedeemablesListResponse = await sdkClient.customers.listRedeemables(buyer.id, nextPage);
    expect(next).toMatchObject({ total: 2, has_more: false });
    const held = [...first.data, ...next.data];
    expect(held.map((entry) => entry.redeemable.voucher!.code).sort()).toEqual([...codes].sort());
    expect(held[0]).toMatchObject({ customer_id: buyer.id, holder_role: 'OWNER', voucher_type: 'GIFT_VOUCHER', redeemable: { type: 'voucher', status: 'ACTIVE' } });
    expect(first.data[0]!.id > next.data[0]!.id).toBe(true);
  });
});

describe('@voucherify/sdk deprecated single-object coverage', () => {
  test('every method of this family that reaches the contract was called (the client side\'s in sdk-legacy-client-side.test.ts)', () => {
    const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8'));
    const expected = [
      ...new Set(
        voucherifySdkMethods(contract)
          .filter((method) => method.operationId !== undefined && LEGACY_OPERATIONS.has(method.operationId) && !method.name.startsWith('client.'))
          .map((method) => method.name),
      ),
    ];
    expect(expected.length).toBeGreaterThan(5);
    expect(expected.filter((name) => !calls.has(name)).sort()).toEqual([]);
  });
});
