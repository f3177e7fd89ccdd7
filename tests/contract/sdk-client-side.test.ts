/**
 * The client-side half of `@voucherify/sdk` 2.9.0 (`VoucherifyClientSide`), unmodified, with the target's
 * client key from an allowed origin: every method whose operation is in the contract is called with every
 * field its request type declares, and read through its declared response type. The other client-side
 * methods (`validate`, `redeem`, `publish`, `listVouchers`, `createCustomer`, `listConsents`,
 * `updateConsents`) call addresses the contract does not have.
 */
import { describe, expect, test } from '@jest/globals';
import sdk from '@voucherify/sdk';
import type {
  ClientSideTrackLoyalty,
  ClientSideTrackReferral,
  ClientSideTrackResponse,
  QualificationsCheckEligibilityResponseBody,
  RedemptionsRedeemStackableResponse,
  ValidationValidateStackableResponse,
} from '@voucherify/sdk';
import { recording } from './sdk-methods.js';
import { customer, customerRequest, qualification, refusal, stackable, uncalled, type Every } from './sdk-requests.js';
import { because, managementClientFor, skip, unique, useTarget } from './target.js';
import { legacyMethods } from './sdk-legacy-scope.js';

const { VoucherifyClientSide } = sdk;

const ctx = useTarget();
const calls = new Set<string>();

/** The client-side SDK with the target's client key, from `origin` (an allowed one by default); undefined when the target has no client key. */
function client(origin?: string) {
  const key = ctx.target.client;
  if (!key) return undefined;
  return recording(VoucherifyClientSide({ clientApplicationId: key.appId, clientSecretKey: key.token, apiUrl: ctx.target.baseUrl, origin: origin ?? key.origin }), calls, 'client');
}

const CLIENT_OPERATIONS = ['track-custom-event-client-side', 'validate-stacked-discounts-client-side', 'redeem-stacked-discounts-client-side', 'check-eligibility-client-side'];

describe('@voucherify/sdk client-side', () => {
  test('when a custom event is tracked with every argument the SDK declares, then it counts the referral and earns the loyalty points', async () => {
    const browser = client();
    const management = ctx.target.management && ctx.target.projectId ? managementClientFor(ctx.target) : undefined;
    if (!browser || !management) return skip(because('client', 'management', 'projectId'), ['track-custom-event-client-side']);
    const event = unique('sdk_signed_up');
    const schema = await management.POST('/management/v1/projects/{projectId}/custom-event-schemas', {
      params: { path: { projectId: ctx.target.projectId! } },
      body: { name: event, schema: { properties: { plan: { type: 'string', optional: false } } } },
    });
    expect(schema.response.status).toBe(200);

    const program = await ctx.client.POST('/v1/campaigns', {
      body: {
        name: unique('SDK refer on event'),
        campaign_type: 'REFERRAL_PROGRAM',
        referral_program: { conversion_event_type: 'custom_event', custom_event: { name: event } },
        voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } },
        vouchers_count: 1,
      },
    });
    const referrer = await customer(ctx.client);
    const referral = await ctx.client.POST('/v1/publications', { body: { campaign: { name: program.data!.name! }, customer: { id: referrer.id } } });
    const club = (await ctx.client.POST('/v1/loyalties', { body: { name: unique('SDK event club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } })).data!;
    await ctx.client.POST('/v1/loyalties/{campaignId}/earning-rules', { params: { path: { campaignId: club.id! } }, body: [{ event, loyalty: { type: 'FIXED', points: 40 } }] });
    const visitor = await customer(ctx.client);
    const card = (await ctx.client.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: club.id! } }, body: { customer: { id: visitor.id } } })).data!;

    const referralCode = { code: referral.data!.voucher!.code! } satisfies Every<ClientSideTrackReferral>;
    const loyaltyCode = { code: card.code! } satisfies Every<ClientSideTrackLoyalty>;
    const tracked: ClientSideTrackResponse = await browser.track(event, customerRequest(visitor, 'Visitor'), { plan: 'pro' }, referralCode, loyaltyCode);
    expect(tracked).toMatchObject({ object: 'event', type: event });

    const after = await ctx.client.GET('/v1/loyalties/members/{memberId}', { params: { path: { memberId: card.code! } } });
    expect(after.data?.loyalty_card).toMatchObject({ points: 40, balance: 40 });
    const referee = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: visitor.id } } })).data!;
    expect(referee.referrals).toEqual({ total: 1, campaigns: [expect.objectContaining({ campaign_id: program.data!.id, referrer_id: referrer.id })] });
    // The event is checked against its schema: without the plan it is refused.
    expect(await refusal(browser.track(event, { source_id: visitor.source_id }))).toEqual({ code: 400, key: 'invalid_metadata' });
  });

  test('when four redeemables are validated and redeemed from the browser with every field the SDK declares, then they are spent as on the server', async () => {
    const browser = client();
    if (!browser) return skip(because('client'), ['validate-stacked-discounts-client-side', 'redeem-stacked-discounts-client-side']);
    const { body, buyer, codes } = await stackable(ctx.client);
    const validation: ValidationValidateStackableResponse = await browser.validateStackable(body);
    expect(validation.valid).toBe(true);
    expect(validation.redeemables?.map((redeemable) => redeemable.status)).toEqual(['APPLICABLE', 'APPLICABLE', 'APPLICABLE', 'APPLICABLE']);
    expect(validation.order).toMatchObject({ amount: 5000, discount_amount: 1800, total_amount: 2200 });
    expect(validation.session).toEqual(body.session);

    const redeemed: RedemptionsRedeemStackableResponse = await browser.redeemStackable(body);
    expect(redeemed.parent_redemption).toMatchObject({ result: 'SUCCESS', customer_id: buyer.id, metadata: { campaign_source: 'sdk' } });
    expect(redeemed.redemptions.map((redemption) => redemption.result)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS']);
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code: codes.gift } } })).data?.gift).toMatchObject({ balance: 2000 });
    expect((await ctx.client.GET('/v1/loyalties/members/{memberId}', { params: { path: { memberId: codes.card } } })).data?.loyalty_card).toMatchObject({ balance: 100 });

    // From an origin the key does not allow, nothing is validated.
    const stranger = client('https://elsewhere.example.test')!;
    expect(await refusal(stranger.validateStackable(body))).toEqual({ code: 403, key: 'origin_not_allowed' });
  });

  test('when eligibility is checked from the browser with every field the SDK declares, then the same redeemables qualify as on the server', async () => {
    const browser = client();
    if (!browser) return skip(because('client'), ['check-eligibility-client-side']);
    const { body, codes } = await qualification(ctx.client);
    const result: QualificationsCheckEligibilityResponseBody = await browser.qualifications(body);
    expect(result.redeemables.data.map((redeemable) => redeemable.id)).toEqual([codes.discount, codes.tier]);
    expect(result.redeemables.data[1]).toMatchObject({ object: 'promotion_tier', result: { discount: { type: 'AMOUNT', amount_off: 300 } }, name: 'Three off' });
    expect(result.order).toMatchObject({ amount: 5000, metadata: { till: 1 } });
    expect(result.stacking_rules).toMatchObject({ redeemables_limit: expect.any(Number) });
  });

  test('every method of the client-side SDK that reaches the contract was called', () => {
    if (!ctx.target.client) return skip(because('client'), CLIENT_OPERATIONS);
    // `track` needs a custom event schema, which only the management API defines.
    // `redeem` and `publish` (by code and by campaign) are sdk-legacy.test.ts's.
    const excused = [...legacyMethods('@voucherify/sdk'), ...(ctx.target.management && ctx.target.projectId ? [] : ['client.track'])];
    expect(uncalled(calls, ['client'], excused)).toEqual([]);
  });
});
