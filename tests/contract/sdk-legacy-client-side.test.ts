/**
 * The client-side half of `@voucherify/sdk` 2.9.0 (`VoucherifyClientSide`), unmodified, for the deprecated
 * client-side operations: `redeem` (one voucher, by code in the query) and `publish`. `redeem` is called with
 * every field its request type declares and read through its declared response type. `publish` cannot work
 * against any implementation of the API as documented (see its scenario), which the scenario shows.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import sdk from '@voucherify/sdk';
import type { ClientSidePublishPayload, ClientSidePublishQueryParams, ClientSideRedeemPayload, ClientSideRedeemResponse } from '@voucherify/sdk';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { LEGACY_OPERATIONS } from './sdk-legacy-scope.js';
import { recording, voucherifySdkMethods } from './sdk-methods.js';
import { catalog, customer, customerRequest, orderItem, refusal, type Every } from './sdk-requests.js';
import { because, skip, unique, useTarget } from './target.js';

const { VoucherifyServerSide, VoucherifyClientSide } = sdk;

const ctx = useTarget();
const calls = new Set<string>();

/** The client-side SDK with the target's client key; undefined when the target has none. */
function browser() {
  const key = ctx.target.client;
  if (!key) return undefined;
  return recording(VoucherifyClientSide({ clientApplicationId: key.appId, clientSecretKey: key.token, apiUrl: ctx.target.baseUrl, origin: key.origin }), calls, 'client');
}

/** The server-side SDK, unrecorded: setup only. */
function server() {
  const { appId, appToken } = ctx.target.credentials;
  return VoucherifyServerSide({ applicationId: appId, secretKey: appToken, apiUrl: ctx.target.baseUrl });
}

async function fiveOff() {
  const code = unique('SDK-CLIENT-LEGACY');
  expect((await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } } })).response.status).toBe(200);
  return code;
}

describe('@voucherify/sdk client side: deprecated redeem, and publish', () => {
  test('when the client side redeems a voucher with every field, then it is the server-side redemption of that voucher, under the session it names', async () => {
    const page = browser();
    if (!page) return skip(because('client'), ['redeem-voucher-client-side']);
    const goods = await catalog(ctx.client);
    const buyer = await customer(ctx.client);
    const code = await fiveOff();
    const held = await server().validations.validateVoucher(code, { order: { amount: 5000 }, session: { type: 'LOCK', ttl: 5, ttl_unit: 'MINUTES' } });
    const order = (await ctx.client.POST('/v1/orders', { body: { source_id: unique('sdk-client-order'), amount: 5000 } })).data!;
    const { sku, quantity, amount, source_id, sku_id, product_id, related_object } = orderItem(goods, 2);
    const payload = {
      // The SDK sends `tracking_id` in the body, which the API documents only in the query; it is ignored.
      tracking_id: unique('track-client'),
      customer: customerRequest(buyer, 'Browser Buyer'),
      order: { id: order.id!, source_id: order.source_id!, metadata: { page: 'checkout' }, amount: 5000, items: [{ source_id, sku_id, product_id, sku, quantity, related_object, amount }] },
      metadata: { page: 'checkout' },
      // A discount voucher takes no reward; the loyalty reward this type carries is for loyalty cards.
      reward: { id: unique('rew_unused') },
      session: { key: held.session!.key! },
    } satisfies Every<ClientSideRedeemPayload>;
    const redeemed: ClientSideRedeemResponse = await page.redeem(code, payload);
    expect(redeemed).toMatchObject({ object: 'redemption', result: 'SUCCESS', customer_id: buyer.id, voucher: { code }, metadata: { page: 'checkout' } });
    expect(redeemed.order).toMatchObject({ amount: 5000, discount_amount: 500 });
    // The session's hold was used and ended by the redemption.
    expect(await refusal(server().vouchers.releaseValidationSession(code, held.session!.key!))).toEqual({ code: 404, key: 'not_found' });
  });

  test('when the client side publishes through the SDK, then the request names no voucher or campaign the API reads, and is refused', async () => {
    const page = browser();
    if (!page) return skip(because('client'), ['create-publication-client-side']);
    const coupons = await ctx.client.POST('/v1/campaigns', {
      body: { name: unique('SDK client publish'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } }, vouchers_count: 1 },
    });
    const buyer = await customer(ctx.client);
    const payload = {
      source_id: unique('sdk-client-pub'),
      channel: 'Voucherify.js',
      customer: customerRequest(buyer, 'Browser Reader'),
      voucher: unique('NOT-SENT'),
      metadata: { page: 'landing' },
    } satisfies Every<ClientSidePublishPayload>;
    const query = { join_once: true, campaign: coupons.data!.name! } satisfies Every<ClientSidePublishQueryParams>;
    // The SDK keeps only `customer` and `channel` of the payload and puts the campaign in the query, which
    // `POST /client/v1/publish` does not read (the API takes `voucher` or `campaign` in the body): the body
    // names nothing to publish, so it is refused, and nothing is published.
    expect(await refusal(page.publish(query.campaign, payload, { join_once: query.join_once }))).toMatchObject({ code: 400, key: 'invalid_publish_params' });
    const vouchers = (await ctx.client.GET('/v1/vouchers', { params: { query: { campaign_id: coupons.data!.id! } } })).data!;
    expect(vouchers.vouchers!.map((voucher) => voucher.holder_id)).toEqual([null]);
  });

  test('every client-side method of this family that reaches the contract was called', () => {
    if (!ctx.target.client) return skip(because('client'), ['redeem-voucher-client-side', 'create-publication-client-side']);
    const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8'));
    const expected = [
      ...new Set(
        voucherifySdkMethods(contract)
          .filter((method) => method.operationId !== undefined && LEGACY_OPERATIONS.has(method.operationId) && method.name.startsWith('client.'))
          .map((method) => method.name),
      ),
    ];
    expect(expected.sort()).toEqual(['client.publish', 'client.redeem']);
    expect(expected.filter((name) => !calls.has(name))).toEqual([]);
  });
});
