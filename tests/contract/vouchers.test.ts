import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

async function voucher(code: string, body: Record<string, unknown> = { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } }) {
  const result = await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: body as never });
  expect(result.response.status).toBe(200);
  return result.data!;
}

describe('creating vouchers', () => {
  test('when a standalone voucher is created with a code, then every field of the interface is there', async () => {
    const code = unique('STANDALONE');
    const made = await voucher(code, {
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 1500, effect: 'APPLY_TO_ORDER' },
      start_date: '2026-01-01T00:00:00.000Z',
      expiration_date: '2027-01-01T00:00:00.000Z',
      validity_timeframe: { interval: 'P1W', duration: 'P1D' },
      validity_day_of_week: [1, 2],
      validity_hours: { daily: [{ start_time: '10:00', expiration_time: '12:00', days_of_week: [1] }] },
      additional_info: 'note',
      metadata: { channel: 'web' },
      redemption: { quantity: 3 },
    });
    expect(made).toEqual({
      id: expect.stringMatching(/^v_/),
      code,
      campaign: null,
      campaign_id: null,
      category: null,
      category_id: null,
      categories: [],
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 1500, effect: 'APPLY_TO_ORDER' },
      gift: null,
      loyalty_card: null,
      start_date: '2026-01-01T00:00:00.000Z',
      expiration_date: '2027-01-01T00:00:00.000Z',
      validity_timeframe: { interval: 'P1W', duration: 'P1D' },
      validity_day_of_week: [1, 2],
      validity_hours: { daily: [{ start_time: '10:00', expiration_time: '12:00', days_of_week: [1] }] },
      active: true,
      additional_info: 'note',
      metadata: { channel: 'web' },
      assets: {
        qr: { id: expect.any(String), url: expect.stringMatching(/\/assets\/qr\//) },
        barcode: { id: expect.any(String), url: expect.stringMatching(/\/assets\/barcode\//) },
      },
      is_referral_code: false,
      created_at: expect.any(String),
      updated_at: null,
      holder_id: null,
      redemption: { quantity: 3, redeemed_quantity: 0, object: 'list', url: `/v1/vouchers/${code}/redemption` },
      publish: { object: 'list', count: 0, url: `/v1/publications?voucher=${code}` },
      validation_rules_assignments: { object: 'list', data_ref: 'data', data: [], total: 0 },
      object: 'voucher',
    });
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data).toEqual(made);
  });

  test('when no code is given, then one is generated from the code config', async () => {
    const result = await ctx.client.POST('/v1/vouchers', {
      body: { type: 'GIFT_VOUCHER', gift: { amount: 2500 }, code_config: { prefix: 'GC-', length: 6, charset: '0123456789' } },
    });
    expect(result.data?.code).toMatch(/^GC-\d{6}$/);
    expect(result.data?.gift).toEqual({ amount: 2500, subtracted_amount: 0, balance: 2500, effect: 'APPLY_TO_ORDER' });
  });

  test('when joining a campaign by name, then the template fills what is left out; category by name works', async () => {
    const category = (await ctx.client.POST('/v1/categories', { body: { name: unique('VoucherCat'), hierarchy: 3 } })).data!;
    const campaign = (
      await ctx.client.POST('/v1/campaigns', {
        body: {
          name: unique('Template'),
          campaign_type: 'DISCOUNT_COUPONS',
          voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 20, amount_limit: 1000 }, redemption: { quantity: 5 } },
          expiration_date: '2027-06-30T00:00:00.000Z',
        },
      })
    ).data!;
    const result = await ctx.client.POST('/v1/vouchers', { body: { campaign: campaign.name, category: category.name } });
    expect(result.data).toMatchObject({
      campaign: campaign.name,
      campaign_id: campaign.id,
      category: category.name,
      category_id: category.id,
      categories: [category],
      discount: { type: 'PERCENT', percent_off: 20, amount_limit: 1000 },
      expiration_date: '2027-06-30T00:00:00.000Z',
      redemption: { quantity: 5 },
    });
  });

  test.each([
    ['no type, no campaign and no discount', {}, 'invalid_voucher'],
    ['a type without its value', { type: 'GIFT_VOUCHER' }, 'invalid_voucher'],
    ['a value of another type', { type: 'GIFT_VOUCHER', gift: { amount: 1 }, discount: { type: 'AMOUNT', amount_off: 1 } }, 'invalid_voucher'],
  ])('when the body has %s, then 400 %s', async (_, body, key) => {
    expectError(await raw(ctx.target, 'POST', `/v1/vouchers/${unique('BAD')}`, { body: JSON.stringify(body) }), 400, key);
  });

  test.each([
    ['a day of week of 7', { validity_day_of_week: [7] }],
    ['a timeframe without start_date', { validity_timeframe: { duration: 'PT1H' } }],
    ['a malformed expiration_date', { expiration_date: '2026-13-01T00:00:00Z' }],
    ['a zero redemption quantity', { redemption: { quantity: 0 } }],
  ])('when the body has %s, then 400 invalid_payload', async (_, extra) => {
    const body = { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 }, ...extra };
    expectError(await raw(ctx.target, 'POST', `/v1/vouchers/${unique('BAD')}`, { body: JSON.stringify(body) }), 400, 'invalid_payload');
  });

  test('when the code is taken or malformed, or the campaign unknown, then 4xx', async () => {
    const code = unique('DUP');
    await voucher(code);
    expectError(failed(await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } })), 409, 'duplicate_found');
    expectError(failed(await ctx.client.POST('/v1/vouchers', { body: { code, type: 'GIFT_VOUCHER', gift: { amount: 1 } } })), 409, 'duplicate_found');
    expectError(await raw(ctx.target, 'POST', '/v1/vouchers', { body: JSON.stringify({ code: 'has space', type: 'GIFT_VOUCHER', gift: { amount: 1 } }) }), 400, 'invalid_payload');
    // The body may repeat the path's code, but not name another; nothing is made under either code.
    const other = unique('OTHER');
    const fresh = unique('FRESH');
    expectError(await raw(ctx.target, 'POST', `/v1/vouchers/${fresh}`, { body: JSON.stringify({ code: other, type: 'GIFT_VOUCHER', gift: { amount: 1 } }) }), 400, 'invalid_voucher');
    for (const unmade of [fresh, other]) expectError(failed(await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code: unmade } } })), 404, 'not_found');
    const repeated = await raw(ctx.target, 'POST', `/v1/vouchers/${fresh}`, { body: JSON.stringify({ code: fresh, type: 'GIFT_VOUCHER', gift: { amount: 1 } }) });
    expect(repeated.status).toBe(200);
    expect(repeated.body).toMatchObject({ code: fresh, gift: { amount: 1 } });
    const missing = await ctx.client.POST('/v1/vouchers', { body: { campaign_id: 'camp_missing' } });
    expect(expectError(failed(missing), 404, 'not_found').resource_type).toBe('campaign');
  });
});

describe('changing vouchers', () => {
  test('when updated, disabled and enabled, then the changes show and the rest stays', async () => {
    const code = unique('UPD');
    const made = await voucher(code);
    const updated = await ctx.client.PUT('/v1/vouchers/{code}', {
      params: { path: { code } },
      body: { metadata: { a: 1 }, expiration_date: '2030-01-01T00:00:00.000Z', redemption: { quantity: 9 }, discount: { type: 'PERCENT', percent_off: 5 } },
    });
    expect(updated.data).toEqual({
      ...made,
      metadata: { a: 1 },
      expiration_date: '2030-01-01T00:00:00.000Z',
      redemption: { ...made.redemption, quantity: 9 },
      discount: { type: 'PERCENT', percent_off: 5 },
      updated_at: expect.any(String),
    });
    expect((await ctx.client.POST('/v1/vouchers/{code}/disable', { params: { path: { code } } })).data?.active).toBe(false);
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data?.active).toBe(false);
    expect((await ctx.client.POST('/v1/vouchers/{code}/enable', { params: { path: { code } } })).data?.active).toBe(true);
  });

  test('when an update clears expiration_date, then the key is left out, as the public API sends it, and the voucher no longer expires', async () => {
    const code = unique('NOEXP');
    await voucher(code, { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 }, expiration_date: '2020-01-01T00:00:00.000Z' });
    const cleared = await ctx.client.PUT('/v1/vouchers/{code}', { params: { path: { code } }, body: { expiration_date: null } });
    expect(cleared.response.status).toBe(200);
    expect(cleared.data).not.toHaveProperty('expiration_date');
    const read = await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } });
    expect(read.data).not.toHaveProperty('expiration_date');
    const validated = await ctx.client.POST('/v1/validations', { body: { redeemables: [{ object: 'voucher', id: code }] } });
    expect(validated.data?.valid).toBe(true);
  });

  test('when an update is invalid, then 4xx and nothing changes', async () => {
    const code = unique('GIFTUPD');
    const made = await voucher(code, { type: 'GIFT_VOUCHER', gift: { amount: 100 } });
    expectError(failed(await ctx.client.PUT('/v1/vouchers/{code}', { params: { path: { code } }, body: { discount: { type: 'AMOUNT', amount_off: 1 } } })), 400, 'invalid_voucher');
    expectError(failed(await ctx.client.PUT('/v1/vouchers/{code}', { params: { path: { code } }, body: { validity_timeframe: { duration: 'PT1H' } } })), 400, 'invalid_voucher');
    expectError(await raw(ctx.target, 'PUT', `/v1/vouchers/${code}`, { body: '{"code":"OTHER"}' }), 400, 'invalid_voucher');
    expectError(await raw(ctx.target, 'PUT', `/v1/vouchers/${code}`, { body: JSON.stringify({ code: 'OTHER', metadata: { a: 1 } }) }), 400, 'invalid_voucher');
    expectError(await raw(ctx.target, 'PUT', `/v1/vouchers/${code}`, { body: '{"code":"has space"}' }), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'PUT', '/v1/vouchers/NO-SUCH-CODE', { body: '{"active":false}' }), 404, 'not_found');
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data).toEqual(made);
  });

  test('when gift credit and loyalty points move, then balances follow and never go negative', async () => {
    const giftCode = unique('GIFT');
    await voucher(giftCode, { type: 'GIFT_VOUCHER', gift: { amount: 10000 } });
    const added = await ctx.client.POST('/v1/vouchers/{code}/balance', { params: { path: { code: giftCode } }, body: { amount: 5000 } });
    expect(added.data).toMatchObject({ amount: 5000, total: 15000, balance: 15000, type: 'gift_voucher', object: 'balance', related_object: { type: 'voucher' } });
    const removed = await ctx.client.POST('/v1/vouchers/{code}/balance', { params: { path: { code: giftCode } }, body: { amount: -4000 } });
    expect(removed.data).toMatchObject({ total: 15000, balance: 11000 });
    const tooMuch = await ctx.client.POST('/v1/vouchers/{code}/balance', { params: { path: { code: giftCode } }, body: { amount: -11001 } });
    expectError(failed(tooMuch), 400, 'invalid_add_balance_params');
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code: giftCode } } })).data?.gift).toEqual({
      amount: 15000,
      subtracted_amount: 4000,
      balance: 11000,
      effect: 'APPLY_TO_ORDER',
    });
    expectError(failed(await ctx.client.POST('/v1/vouchers/{code}/balance', { params: { path: { code: giftCode } }, body: { points: 5 } })), 400, 'invalid_add_balance_params');

    const cardCode = unique('CARD');
    await voucher(cardCode, { type: 'LOYALTY_CARD', loyalty_card: { points: 10 } });
    const points = await ctx.client.POST('/v1/vouchers/{code}/balance', { params: { path: { code: cardCode } }, body: { points: 90 } });
    expect(points.data).toMatchObject({ amount: 90, total: 100, balance: 100, type: 'loyalty_card' });
    expectError(failed(await ctx.client.POST('/v1/vouchers/{code}/balance', { params: { path: { code: cardCode } }, body: { points: -101 } })), 400, 'invalid_add_balance_params');
    expectError(await raw(ctx.target, 'POST', `/v1/vouchers/${cardCode}/balance`, { body: '{"points":0}' }), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'POST', `/v1/vouchers/${cardCode}/balance`, { body: '{"points":1,"amount":1}' }), 400, 'invalid_add_balance_params');
    expectError(await raw(ctx.target, 'POST', `/v1/vouchers/${cardCode}/balance`, { body: '{"reason":"nothing to add"}' }), 400, 'invalid_add_balance_params');
    const discountCode = unique('DISC');
    await voucher(discountCode);
    expectError(failed(await ctx.client.POST('/v1/vouchers/{code}/balance', { params: { path: { code: discountCode } }, body: { amount: 5 } })), 400, 'invalid_add_balance_params');
  });

  test('when deleted for good (force), then it is gone and the code is free', async () => {
    const code = unique('GONE');
    await voucher(code);
    // Without force the voucher would go to the bin and keep its code (bin.test.ts).
    expect((await ctx.client.DELETE('/v1/vouchers/{code}', { params: { path: { code }, query: { force: true } } })).response.status).toBe(204);
    expectError(failed(await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })), 404, 'not_found');
    expectError(failed(await ctx.client.DELETE('/v1/vouchers/{code}', { params: { path: { code } } })), 404, 'not_found');
    await voucher(code);
  });
});

describe('voucher assets', () => {
  test('when the asset URLs are fetched without credentials, then they are PNG images', async () => {
    const made = await voucher(unique('ASSET'));
    for (const asset of [made.assets?.qr, made.assets?.barcode]) {
      const url = new URL(asset!.url!);
      const response = await fetch(`${ctx.target.baseUrl}${url.pathname}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/image\/png/);
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect([...bytes.slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    }
  });

  test('when an asset ID is forged, of the wrong kind, or its voucher deleted, then 404', async () => {
    const code = unique('FORGE');
    const made = await voucher(code);
    const qr = made.assets!.qr!.id!;
    expectError(await raw(ctx.target, 'GET', `/assets/qr/${qr.slice(0, -2)}xx`, { credentials: null }), 404, 'not_found');
    expectError(await raw(ctx.target, 'GET', `/assets/barcode/${qr}`, { credentials: null }), 404, 'not_found');
    expectError(await raw(ctx.target, 'GET', '/assets/qr/abc', { credentials: null }), 404, 'not_found');
    expectError(await raw(ctx.target, 'GET', '/assets/qr/not.valid', { credentials: null }), 400, 'invalid_query_params');
    await ctx.client.DELETE('/v1/vouchers/{code}', { params: { path: { code } } });
    expectError(await raw(ctx.target, 'GET', `/assets/qr/${qr}`, { credentials: null }), 404, 'not_found');
  });
});
