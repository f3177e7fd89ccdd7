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
