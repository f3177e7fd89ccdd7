/**
 * The documented limits on what a request may hold: metadata (components/schemas/Metadata.yaml), voucher
 * codes and the code configs that make them (VoucherCode.yaml, CodeConfig.yaml), and the lengths of
 * strings and arrays. Past a limit, a 400 in the error shape and nothing written; within it, accepted.
 */
import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';
import { nestedObjects, wire } from './wire.js';

const ctx = useTarget();

/** Metadata of about `bytes` bytes as JSON, in `keys` string values. */
function metadataOf(bytes: number, keys = 1): Record<string, string> {
  const each = Math.floor(bytes / keys) - 12;
  return Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${String(i).padStart(3, '0')}`, 'm'.repeat(each)]));
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

async function customerCount(sourceId: string): Promise<number> {
  const listed = await raw(ctx.target, 'GET', `/v1/customers/${encodeURIComponent(sourceId)}`);
  return listed.status === 200 ? 1 : 0;
}

describe('metadata limits', () => {
  test('when a customer is created with about 1 MB of metadata, then a 400 and no customer', async () => {
    const sourceId = unique('big-metadata');
    const metadata = metadataOf(900_000, 10);
    const response = await raw(ctx.target, 'POST', '/v1/customers', { body: JSON.stringify({ source_id: sourceId, metadata }) });
    console.log(`metadata of ${jsonBytes(metadata)} bytes: ${response.status}`);
    expectError(response, 400, 'invalid_payload');
    expect(await customerCount(sourceId)).toBe(0);
  });

  test('when metadata is just within every limit, then it is taken as it is; one past any limit, then a 400 naming the field', async () => {
    // 16 KiB as JSON, in 100 keys: the most the contract allows.
    let within = metadataOf(16 * 1024, 100);
    while (jsonBytes(within) > 16 * 1024) within = metadataOf(16 * 1024 - (jsonBytes(within) - 16 * 1024) - 100, 100);
    const deepest = nestedObjects(6, 'a', '"x"');
    const takenCases: [string, string][] = [
      ['16 KiB in 100 keys', JSON.stringify(within)],
      ['5 levels inside', deepest],
      ['a 5 000-character string', JSON.stringify({ note: 'n'.repeat(5_000) })],
      ['a 255-character key', JSON.stringify({ ['k'.repeat(255)]: 1 })],
    ];
    for (const [label, metadata] of takenCases) {
      const sourceId = unique('meta-ok');
      const response = await raw(ctx.target, 'POST', '/v1/customers', { body: `{"source_id":"${sourceId}","metadata":${metadata}}` });
      expect({ label, status: response.status }).toEqual({ label, status: 200 });
      expect((response.body as { metadata?: unknown }).metadata).toEqual(JSON.parse(metadata));
    }
    const refusedCases: [string, string][] = [
      ['past 16 KiB', JSON.stringify(metadataOf(16 * 1024 + 200, 10))],
      ['101 keys', JSON.stringify(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])))],
      ['6 levels inside', nestedObjects(7, 'a', '"x"')],
      ['a 5 001-character string', JSON.stringify({ note: 'n'.repeat(5_001) })],
      ['a 256-character key', JSON.stringify({ ['k'.repeat(256)]: 1 })],
      ['an array of 101 items', JSON.stringify({ list: Array.from({ length: 101 }, (_, i) => i) })],
    ];
    for (const [label, metadata] of refusedCases) {
      const sourceId = unique('meta-refused');
      const response = await raw(ctx.target, 'POST', '/v1/customers', { body: `{"source_id":"${sourceId}","metadata":${metadata}}` });
      expect({ label, status: response.status }).toEqual({ label, status: 400 });
      const body = expectError(response, 400, 'invalid_payload');
      expect({ label, details: body.details }).toEqual({ label, details: expect.stringContaining('metadata') });
      expect(await customerCount(sourceId)).toBe(0);
    }
  });

  test('when metadata nested in a body (an order item, a customer in a redemption) is past its limits, then a 400', async () => {
    const order = { amount: 1000, items: [{ quantity: 1, price: 1000, metadata: metadataOf(20_000, 4) }] };
    expectError(await raw(ctx.target, 'POST', '/v1/orders', { body: JSON.stringify(order) }), 400, 'invalid_payload');
    const customer = { source_id: unique('nested'), metadata: JSON.parse(nestedObjects(7)) };
    expectError(await raw(ctx.target, 'POST', '/v1/validations', { body: JSON.stringify({ customer, redeemables: [{ object: 'voucher', id: 'x' }] }) }), 400, 'invalid_payload');
  });
});

describe('string and array limits', () => {
  test('when a name or description is past its documented length, then a 400; an array of order items past 500, then a 400', async () => {
    expectError(failed(await ctx.client.POST('/v1/customers', { body: { source_id: unique('long'), name: 'n'.repeat(1_001) } })), 400, 'invalid_payload');
    expectError(failed(await ctx.client.POST('/v1/customers', { body: { source_id: unique('long'), description: 'd'.repeat(10_001) } })), 400, 'invalid_payload');
    expectError(failed(await ctx.client.POST('/v1/products', { body: { name: 'p'.repeat(1_001) } })), 400, 'invalid_payload');
    const items = Array.from({ length: 501 }, () => ({ quantity: 1, price: 100 }));
    expectError(await raw(ctx.target, 'POST', '/v1/orders', { body: JSON.stringify({ amount: 50_100, items }) }), 400, 'invalid_payload');
    // At the limits, taken.
    const taken = await ctx.client.POST('/v1/customers', { body: { source_id: unique('long'), name: 'n'.repeat(1_000), description: 'd'.repeat(10_000) } });
    expect(taken.response.status).toBe(200);
    const order = await raw(ctx.target, 'POST', '/v1/orders', { body: JSON.stringify({ amount: 50_000, items: items.slice(1) }) });
    expect(order.status).toBe(200);
  });
});

describe('numbers sent as text', () => {
  // Found by `make fuzz`: a string past the number's maximum was stored, and the answer broke the contract.
  test('when a COIN reward gives its ratios as text past the bounds of the numbers, then a 400; within them, the numbers', async () => {
    for (const coin of [{ exchange_ratio: '2000000000' }, { exchange_ratio: '50', points_ratio: '1000000001' }, { exchange_ratio: '1000000000.5' }]) {
      const response = await raw(ctx.target, 'POST', '/v1/rewards', { body: JSON.stringify({ name: unique('Coins'), type: 'COIN', parameters: { coin } }) });
      expect({ coin, status: response.status, key: (response.body as { key?: unknown }).key }).toEqual({ coin, status: 400, key: 'invalid_payload' });
    }
    const within = await raw(ctx.target, 'POST', '/v1/rewards', {
      body: JSON.stringify({ name: unique('Coins'), type: 'COIN', parameters: { coin: { exchange_ratio: '1000000000', points_ratio: '1000000000' } } }),
    });
    expect(within).toMatchObject({ status: 200, body: { parameters: { coin: { exchange_ratio: 1_000_000_000, points_ratio: 1_000_000_000 } } } });
  });
});

const DISCOUNT = { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } };

describe('voucher codes', () => {
  const refused: [string, string][] = [
    ['NUL', '\u0000'],
    ['a control character inside', 'AB\u0007C'],
    ['a zero-width space inside', 'AB\u200BC'],
    ['a right-to-left override', '\u202EKCAB'],
    ['whitespace only', '   '],
    ['a space inside', 'SUMMER SALE'],
    ['.', '.'],
    ['..', '..'],
    ['__proto__', '__proto__'],
    ['constructor', 'constructor'],
    ['prototype', 'prototype'],
    ['a slash', 'A/B'],
    ['101 characters', 'C'.repeat(101)],
    ['empty', ''],
  ];

  test('when a voucher is created with a code outside the documented rules, then a 400 and no voucher', async () => {
    for (const [label, code] of refused) {
      const response = await raw(ctx.target, 'POST', '/v1/vouchers', { body: JSON.stringify({ ...DISCOUNT, code }) });
      expect({ label, status: response.status, key: (response.body as { key?: unknown }).key }).toEqual({ label, status: 400, key: 'invalid_payload' });
    }
    const listed = await ctx.client.GET('/v1/vouchers', { params: { query: { limit: 100 } } });
    const codes = new Set((listed.data?.vouchers ?? []).map((voucher) => voucher.code));
    for (const [, code] of refused) expect({ code, stored: codes.has(code) }).toEqual({ code, stored: false });
  });

  test('when a code is printable, 1 to 100 characters, and not reserved, then it is taken, accents, emoji and lookalikes of reserved names included', async () => {
    for (const code of [unique('ÉTÉ'), `${unique('GIFT')}-😀`, unique('__proto__'), 'C'.repeat(100 - 11) + unique('').slice(0, 11), unique('...')]) {
      const created = await raw(ctx.target, 'POST', '/v1/vouchers', { body: JSON.stringify({ ...DISCOUNT, code }) });
      expect({ code, status: created.status }).toEqual({ code, status: 200 });
      const fetched = await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } });
      expect({ code, status: fetched.response.status, got: fetched.data?.code }).toEqual({ code, status: 200, got: code });
    }
  });

  test('when a code in the path is outside the rules, then a 4xx in the error shape: never another resource, never a 5xx', async () => {
    const unframed = ctx.target.baseUrl.startsWith('http:');
    const paths = ['/v1/vouchers/..', '/v1/vouchers/%2e%2e', '/v1/vouchers/%2E.', '/v1/vouchers/.', '/v1/vouchers/%00', '/v1/vouchers/A%00B', '/v1/vouchers/__proto__', '/v1/vouchers/constructor', '/v1/vouchers/%2F', '/v1/vouchers/..%2F..%2Fcustomers'];
    for (const path of paths) {
      // As written (`..` unresolved) where the target allows, and as a URL parser resolves it.
      const response = unframed ? await wire(ctx.target, 'GET', path, { unframed: true }) : await raw(ctx.target, 'GET', path);
      const body = response.body as { code?: unknown; key?: unknown; object?: unknown } | undefined;
      expect({ path, clientError: response.status >= 400 && response.status < 500, shaped: typeof body?.key === 'string' && body?.code === response.status }).toEqual({
        path,
        clientError: true,
        shaped: true,
      });
    }
    // A URL parser resolves `.` and `..` (even as %2E) before sending, so those two go only as written, above.
    for (const [label, code] of refused.filter(([, code]) => !['', '   ', '.', '..'].includes(code))) {
      const response = await raw(ctx.target, 'POST', `/v1/vouchers/${encodeURIComponent(code)}`, { body: JSON.stringify(DISCOUNT) });
      expect({ label, status: response.status }).toEqual({ label, status: 400 });
    }
  });

  test('when a code config would make codes outside the rules, then the campaign or voucher is refused with a 400', async () => {
    const campaign = (codeConfig: Record<string, unknown>) =>
      raw(ctx.target, 'POST', '/v1/campaigns', {
        body: JSON.stringify({ name: unique('codes'), campaign_type: 'DISCOUNT_COUPONS', type: 'AUTO_UPDATE', voucher: { ...DISCOUNT, code_config: codeConfig } }),
      });
    const cases: [string, Record<string, unknown>, string][] = [
      ['a space in the prefix', { prefix: 'SUM ', length: 6 }, 'invalid_payload'],
      ['a control character in the postfix', { postfix: '\u0001', length: 6 }, 'invalid_payload'],
      ['a slash in the charset', { charset: 'AB/', length: 6 }, 'invalid_payload'],
      ['a % in the pattern', { pattern: '##%##' }, 'invalid_payload'],
      ['codes longer than 100 characters', { prefix: 'P'.repeat(64), postfix: 'Q'.repeat(30), length: 7 }, 'invalid_code_config'],
      ['a pattern making codes longer than 100', { prefix: 'P'.repeat(10), pattern: `${'#'.repeat(60)}-${'#'.repeat(35)}` }, 'invalid_code_config'],
    ];
    for (const [label, config, key] of cases) {
      const response = await campaign(config);
      expect({ label, status: response.status, key: (response.body as { key?: unknown }).key }).toEqual({ label, status: 400, key });
    }
    // A space that holds only reserved codes (`..`) cannot make one.
    const reservedOnly = await raw(ctx.target, 'POST', '/v1/vouchers', { body: JSON.stringify({ ...DISCOUNT, code_config: { charset: '.', length: 2 } }) });
    expectError(reservedOnly, 400, 'invalid_code_config');
    // Exactly 100 characters is taken.
    const longest = await campaign({ prefix: 'P'.repeat(64), postfix: 'Q'.repeat(30), length: 6 });
    expect(longest.status).toBe(200);
  });
});

describe('text no store keeps', () => {
  // PostgreSQL cannot keep a NUL or an unpaired surrogate in text or JSON; every store refuses them alike.
  // JSON escapes carry them: `"\u0000"`, `"\ud800"`.
  const NUL = '\\u0000';
  const HIGH = '\\ud800';
  const LOW = '\\udc00';

  test('when a body holds a NUL or an unpaired surrogate anywhere (a value, a nested value, a key), then a 400 naming where, and nothing written', async () => {
    const cases: [string, (sourceId: string) => string, string][] = [
      ['a NUL in the name', (id) => `{"source_id":"${id}","name":"Ann${NUL}e"}`, "'name'"],
      ['a lone high surrogate in metadata', (id) => `{"source_id":"${id}","metadata":{"note":"x${HIGH}"}}`, "'metadata.note'"],
      ['a lone low surrogate in an address', (id) => `{"source_id":"${id}","address":{"city":"${LOW}Oslo"}}`, "'address.city'"],
      ['a NUL in a metadata key', (id) => `{"source_id":"${id}","metadata":{"k${NUL}":1}}`, 'metadata.(a field name)'],
    ];
    for (const [label, body, where] of cases) {
      const sourceId = unique('text');
      const response = await raw(ctx.target, 'POST', '/v1/customers', { body: body(sourceId) });
      expect({ label, status: response.status }).toEqual({ label, status: 400 });
      const error = expectError(response, 400, 'invalid_payload');
      expect(error.details).toContain(where);
      expect(await customerCount(sourceId)).toBe(0);
    }
    // A pair of surrogates is one character (an emoji), and is kept as it is.
    const sourceId = unique('pair');
    const paired = await raw(ctx.target, 'POST', '/v1/customers', { body: `{"source_id":"${sourceId}","name":"\\ud83d\\ude00"}` });
    expect(paired.status).toBe(200);
    expect((paired.body as { name?: unknown }).name).toBe('😀');
  });

  test('when a voucher code or a code prefix holds an unpaired surrogate, then a 400 and no voucher or campaign', async () => {
    const code = unique('SURR');
    const voucher = await raw(ctx.target, 'POST', '/v1/vouchers', { body: `{"type":"DISCOUNT_VOUCHER","discount":{"type":"AMOUNT","amount_off":100},"code":"${code}${HIGH}"}` });
    expectError(voucher, 400, 'invalid_payload');
    const byPath = await raw(ctx.target, 'POST', `/v1/vouchers/${code}%ED%A0%80`, { body: JSON.stringify(DISCOUNT) });
    expect(byPath.status).toBeGreaterThanOrEqual(400);
    expect(byPath.status).toBeLessThan(500);
    const name = unique('surrogate-prefix');
    const campaign = await raw(ctx.target, 'POST', '/v1/campaigns', {
      body: `{"name":"${name}","campaign_type":"DISCOUNT_COUPONS","type":"AUTO_UPDATE","voucher":{"type":"DISCOUNT_VOUCHER","discount":{"type":"AMOUNT","amount_off":100},"code_config":{"prefix":"P${LOW}","length":6}}}`,
    });
    expectError(campaign, 400, 'invalid_payload');
    expect((await raw(ctx.target, 'GET', `/v1/campaigns/${name}`)).status).toBe(404);
    const listed = await ctx.client.GET('/v1/vouchers', { params: { query: { limit: 100 } } });
    expect((listed.data?.vouchers ?? []).filter((listedVoucher) => listedVoucher.code?.startsWith(code))).toEqual([]);
  });

  test('when a path or a query value holds a NUL, then a 400 in the error shape, never a lookup', async () => {
    const inPath = await raw(ctx.target, 'GET', '/v1/customers/cust%00omer');
    expectError(inPath, 400, 'invalid_payload');
    const inQuery = await raw(ctx.target, 'GET', '/v1/vouchers?category=a%00b');
    const error = expectError(inQuery, 400, 'invalid_query_params');
    expect(error.details).toContain("'category'");
    const inQueryName = await raw(ctx.target, 'GET', '/v1/customers?x%00y=1');
    expectError(inQueryName, 400, 'invalid_query_params');
    // Nor is a limit or page that is not a finite whole number taken.
    for (const query of ['limit=Infinity', 'limit=1e400', 'page=-Infinity', 'page=1e300', 'limit=NaN']) {
      const response = await raw(ctx.target, 'GET', `/v1/vouchers?${query}`);
      expect({ query, status: response.status, key: (response.body as { key?: unknown }).key }).toEqual({ query, status: 400, key: 'invalid_query_params' });
    }
  });
});

describe('numbers kept exactly', () => {
  const MAX = Number.MAX_SAFE_INTEGER;

  test('when a body holds a number past ±(2^53 − 1) (an amount of 1.8e308, say), then a 400 naming it, and nothing written', async () => {
    const cases: [string, string, string, string][] = [
      ['a gift amount of 1.8e308', '/v1/vouchers', `{"type":"GIFT_VOUCHER","code":"${unique('HUGE')}","gift":{"amount":1.8e308}}`, "'gift.amount'"],
      ['an amount_off of 2^53', '/v1/vouchers', `{"type":"DISCOUNT_VOUCHER","code":"${unique('HUGE')}","discount":{"type":"AMOUNT","amount_off":9007199254740992}}`, "'discount.amount_off'"],
      ['a negative item price past the range', '/v1/orders', `{"items":[{"quantity":1,"price":-1e20}]}`, "'items[0].price'"],
    ];
    for (const [label, path, body, where] of cases) {
      const response = await raw(ctx.target, 'POST', path, { body });
      expect({ label, status: response.status }).toEqual({ label, status: 400 });
      expect(expectError(response, 400, 'invalid_payload').details).toContain(where);
    }
    // The largest safe integer itself is an ordinary number.
    const code = unique('EDGE');
    const edge = await raw(ctx.target, 'POST', '/v1/vouchers', { body: `{"type":"GIFT_VOUCHER","code":"${code}","gift":{"amount":${MAX}}}` });
    expect(edge.status).toBe(200);
    expect((edge.body as { gift?: { balance?: unknown } }).gift?.balance).toBe(MAX);
  });

  test('when a top-up would take a gift card past the largest amount kept exactly, then a 400 and the balance and ledger stay as they were', async () => {
    const code = unique('NEARMAX');
    const created = await raw(ctx.target, 'POST', '/v1/vouchers', { body: `{"type":"GIFT_VOUCHER","code":"${code}","gift":{"amount":${MAX - 1}}}` });
    expect(created.status).toBe(200);
    const fits = await raw(ctx.target, 'POST', `/v1/vouchers/${code}/balance`, { body: '{"amount":1}' });
    expect((fits.body as { balance?: unknown }).balance).toBe(MAX);
    const past = await raw(ctx.target, 'POST', `/v1/vouchers/${code}/balance`, { body: '{"amount":1}' });
    expectError(past, 400, 'invalid_add_balance_params');
    const voucher = await raw(ctx.target, 'GET', `/v1/vouchers/${code}`);
    expect((voucher.body as { gift?: unknown }).gift).toEqual(expect.objectContaining({ amount: MAX, balance: MAX }));
    const transactions = await raw(ctx.target, 'GET', `/v1/vouchers/${code}/transactions`);
    expect((transactions.body as { data: { type: string }[] }).data.map((transaction) => transaction.type)).toEqual(['CREDITS_ADDITION']);
  });
});
