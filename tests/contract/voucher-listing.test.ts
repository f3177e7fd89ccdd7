import { beforeAll, describe, expect, test } from '@jest/globals';
import { expectError } from './expect-error.js';
import { known } from './known.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

interface Listed {
  object: string;
  data_ref: string;
  vouchers: { id: string; code: string }[];
  total: number;
}

const setup = {} as {
  prefix: string;
  a: { id: string; name: string };
  b: { id: string; name: string };
  category: { id: string; name: string };
  codes: Record<string, { id: string; code: string }>;
  afterA: string;
};

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function list(query: string): Promise<Listed> {
  const response = await raw(ctx.target, 'GET', `/v1/vouchers?${query}`);
  expect(response.status).toBe(200);
  return response.body as Listed;
}

const codesOf = (listed: Listed) => listed.vouchers.map((v) => v.code);
const c = (name: string) => setup.codes[name]!.code;

beforeAll(async () => {
  setup.prefix = unique('L').toUpperCase();
  setup.category = (await ctx.client.POST('/v1/categories', { body: { name: unique('ListCat'), hierarchy: 1 } })).data!;
  const campaign = async () =>
    known(
      (
        await ctx.client.POST('/v1/campaigns', {
          body: { name: unique('ListCampaign'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } },
        })
      ).data,
      'id',
      'name',
    );
  setup.a = await campaign();
  setup.b = await campaign();
  setup.codes = {};
  const add = async (campaignId: string, name: string, body: Record<string, unknown>) => {
    const code = `${setup.prefix}-${name}`;
    const result = await ctx.client.POST('/v1/campaigns/{campaignId}/vouchers/{code}', { params: { path: { campaignId, code } }, body });
    expect(result.response.status).toBe(200);
    setup.codes[name] = { id: result.data!.id!, code: result.data!.code! };
    await pause(3);
  };
  // Created in this order, a few milliseconds apart, so creation order is unambiguous.
  await add(setup.a.id, 'A3', { expiration_date: '2026-03-01T00:00:00.000Z', metadata: { tier: 'gold' } });
  await add(setup.a.id, 'A1', { expiration_date: '2026-01-01T00:00:00.000Z', category_id: setup.category.id });
  await add(setup.a.id, 'A5', { metadata: { tier: 'silver' } });
  await add(setup.a.id, 'A2', { expiration_date: '2028-01-01T00:00:00.000Z', category: setup.category.name, metadata: { tier: 'gold' } });
  await add(setup.a.id, 'A4', {});
  setup.afterA = new Date().toISOString();
  await pause(3);
  await add(setup.b.id, 'B1', { category_id: setup.category.id });
  await add(setup.b.id, 'B2', {});
  await ctx.client.PUT('/v1/vouchers/{code}', { params: { path: { code: c('A5') } }, body: { additional_info: 'touched' } });
});

describe('list-vouchers filters', () => {
  test('by campaign ID or name: exactly its vouchers, newest first by default, counted in total', async () => {
    const byId = await list(`campaign_id=${setup.a.id}`);
    expect(byId).toMatchObject({ object: 'list', data_ref: 'vouchers', total: 5 });
    expect(codesOf(byId)).toEqual(['A4', 'A2', 'A5', 'A1', 'A3'].map(c));
    expect(codesOf(await list(`campaign=${encodeURIComponent(setup.a.name)}`))).toEqual(codesOf(byId));
    expect((await list(`campaign_id=${setup.a.id}&campaign=${encodeURIComponent(setup.b.name)}`)).total).toBe(0);
    expect((await list('campaign=no-such-campaign')).total).toBe(0);
  });

  test('by category name or ID, code, ids, and customer', async () => {
    const expected = ['B1', 'A2', 'A1'].map(c);
    expect(codesOf(await list(`category=${encodeURIComponent(setup.category.name)}`))).toEqual(expected);
    expect(codesOf(await list(`category=${setup.category.id}`))).toEqual(expected);
    expect(codesOf(await list(`code=${c('A3')}`))).toEqual([c('A3')]);
    const ids = await list(`ids=${setup.codes.A1!.id}&ids=${setup.codes.B2!.id}&order=code`);
    expect(codesOf(ids)).toEqual([c('A1'), c('B2')]);
    expect((await list('customer=cust_nobody')).total).toBe(0);
    const customer = (await ctx.client.POST('/v1/customers', { body: { name: 'No vouchers' } })).data!;
    expect((await list(`customer=${customer.id}`)).total).toBe(0);
  });

  test('by creation and update time', async () => {
    const after = await list(`created_at[after]=${encodeURIComponent(setup.afterA)}&category=${setup.category.id}`);
    expect(codesOf(after)).toEqual([c('B1')]);
    const before = await list(`created_at[before]=${encodeURIComponent(setup.afterA)}&campaign_id=${setup.b.id}`);
    expect(before.total).toBe(0);
    const updated = await list(`updated_at[after]=2000-01-01&campaign_id=${setup.a.id}`);
    expect(codesOf(updated)).toEqual([c('A5')]);
  });

  test('by advanced filters, with and and or junctions', async () => {
    const scope = `campaign_id=${setup.a.id}`;
    const expiring = await list(`${scope}&filters[expiration_date][conditions][$before]=2026-06-01&order=code`);
    expect(codesOf(expiring)).toEqual([c('A1'), c('A3')]);
    const gold = await list(`${scope}&filters[metadata.tier][conditions][$is]=gold&order=code`);
    expect(codesOf(gold)).toEqual([c('A2'), c('A3')]);
    const goldOrA5 = await list(
      `${scope}&filters[junction]=or&filters[metadata.tier][conditions][$is]=gold&filters[code][conditions][$in][]=${c('A5')}&filters[code][conditions][$in][]=nothing&order=code`,
    );
    expect(codesOf(goldOrA5)).toEqual([c('A2'), c('A3'), c('A5')]);
    const goldAndExpiring = await list(
      `${scope}&filters[metadata.tier][conditions][$is]=gold&filters[expiration_date][conditions][$after]=2027-01-01`,
    );
    expect(codesOf(goldAndExpiring)).toEqual([c('A2')]);
    const noExpiry = await list(`${scope}&filters[expiration_date][conditions][$is_unknown]=true&order=code`);
    expect(codesOf(noExpiry)).toEqual([c('A4'), c('A5')]);
  });

  test('by filters[campaign_ids], as the published SDKs send it, then it is campaign_id under another name; both at once is a 400', async () => {
    const ofA = await list(`filters[campaign_ids][conditions][$in][]=${setup.a.id}&filters[campaign_ids][conditions][$in][]=camp_none&order=code`);
    expect(codesOf(ofA)).toEqual([c('A1'), c('A2'), c('A3'), c('A4'), c('A5')]);
    const one = await list(`filters[campaign_ids][conditions][$is]=${setup.b.id}&order=code`);
    expect(codesOf(one)).toEqual([c('B1'), c('B2')]);
    const both = await raw(ctx.target, 'GET', `/v1/vouchers?filters[campaign_ids][conditions][$is]=${setup.b.id}&filters[campaign_id][conditions][$is]=${setup.b.id}`);
    expectError(both, 400, 'invalid_query_params');
  });
});

describe('list-vouchers order and pages', () => {
  test.each([
    ['code', ['A1', 'A2', 'A3', 'A4', 'A5']],
    ['-code', ['A5', 'A4', 'A3', 'A2', 'A1']],
    ['created_at', ['A3', 'A1', 'A5', 'A2', 'A4']],
    ['-created_at', ['A4', 'A2', 'A5', 'A1', 'A3']],
    ['updated_at', ['A3', 'A1', 'A2', 'A4', 'A5']],
    ['-updated_at', ['A5', 'A4', 'A2', 'A1', 'A3']],
  ])('order=%s sorts exactly', async (order, names) => {
    expect(codesOf(await list(`campaign_id=${setup.a.id}&order=${order}`))).toEqual(names.map(c));
  });

  test('pages partition the matches, total never changes, and a page past the end is empty', async () => {
    const pages = [];
    for (const page of [1, 2, 3, 4]) {
      const listed = await list(`campaign_id=${setup.a.id}&order=code&limit=2&page=${page}`);
      expect(listed.total).toBe(5);
      pages.push(codesOf(listed));
    }
    expect(pages).toEqual([[c('A1'), c('A2')], [c('A3'), c('A4')], [c('A5')], []]);
    const all = await list(`campaign_id=${setup.a.id}&limit=100`);
    expect(all.vouchers).toHaveLength(5);
    const one = await list(`campaign_id=${setup.a.id}&limit=1&page=99`);
    expect(one).toMatchObject({ vouchers: [], total: 5 });
  });

  test('no limit means 10', async () => {
    for (let i = 0; i < 11; i++) {
      await ctx.client.POST('/v1/campaigns/{campaignId}/vouchers', { params: { path: { campaignId: setup.b.id } }, body: {} });
    }
    const listed = await list(`campaign_id=${setup.b.id}`);
    expect(listed.vouchers).toHaveLength(10);
    expect(listed.total).toBe(13);
  });

  test.each([
    ['limit=0'],
    ['limit=101'],
    ['page=0'],
    ['page=100'],
    ['order=name'],
    ['created_at[before]=yesterday'],
    ['updated_at[after]=2026-02-30'],
    ['filters[colour][conditions][$is]=red'],
    ['filters[code][conditions][$near]=x'],
    ['filters[junction]=xor'],
  ])('%s is rejected with 400 invalid_query_params', async (query) => {
    expectError(await raw(ctx.target, 'GET', `/v1/vouchers?${query}`), 400, 'invalid_query_params');
  });
});
