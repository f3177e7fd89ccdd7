import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { deletedCampaign } from './data-helpers.js';
import { known } from './known.js';
import { raw, unique, useTarget } from './target.js';
import type { components } from '../../generated/openapi.js';

const ctx = useTarget();

type BinPage = components['schemas']['TrashBinListResponseBody'];

/** A query string in the bracket form deepObject parameters take (the typed client cannot nest that deep). */
function bracketQuery(value: unknown, prefix: string): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => bracketQuery(item, `${prefix}[]`));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => bracketQuery(item, `${prefix}[${key}]`));
  return [`${prefix}=${encodeURIComponent(String(value))}`];
}

/** A page of the bin, with the filters and other query parameters given. */
async function binPage(query: { filters?: object; limit?: number; order?: string; starting_after_id?: string }): Promise<BinPage> {
  const { filters, ...plain } = query;
  const parts = [...(filters ? bracketQuery(filters, 'filters') : []), ...Object.entries(plain).map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`)];
  const result = await raw(ctx.target, 'GET', `/v1/trash-bin?${parts.join('&')}`);
  expect(result.status).toBe(200);
  return result.body as BinPage;
}

const discountTemplate = (pattern: string) => ({
  type: 'DISCOUNT_VOUCHER' as const,
  discount: { type: 'AMOUNT' as const, amount_off: 500 },
  code_config: { pattern },
});

async function campaign(name = unique('Binned'), vouchers_count = 2) {
  const result = await ctx.client.POST('/v1/campaigns', {
    body: { name, campaign_type: 'DISCOUNT_COUPONS', voucher: discountTemplate(`${unique('B').toUpperCase()}-####`), vouchers_count },
  });
  expect(result.response.status).toBe(200);
  return known(result.data, 'id', 'name');
}

async function codesOf(campaignId: string) {
  const result = await ctx.client.GET('/v1/vouchers', { params: { query: { campaign_id: campaignId, limit: 100 } } });
  return result.data!.vouchers!.map((voucher) => voucher.code!);
}

async function voucher(code: string) {
  const result = await ctx.client.POST('/v1/vouchers/{code}', {
    params: { path: { code } },
    body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
  });
  return result;
}

/** The bin's entries for one object, by its ID. */
async function entriesOf(resourceId: string) {
  return binPage({ filters: { resource_id: { conditions: { $is: resourceId } } }, limit: 100 });
}

async function emptyBinEntry(id: string) {
  return ctx.client.DELETE('/v1/trash-bin/{binEntryId}', { params: { path: { binEntryId: id } } });
}

describe('deleting a campaign moves it to the bin', () => {
  test('when a campaign is deleted without force, then it is gone from gets and lists, found in the bin, its name and codes stay taken until the entry is deleted', async () => {
    const made = await campaign();
    const codes = await codesOf(made.id);
    expect(codes).toHaveLength(2);
    expect(await deletedCampaign(ctx.client, made.id)).toMatchObject({ status: 'DONE' });

    // Gone from every get and list.
    expectError(failed(await ctx.client.GET('/v1/campaigns/{campaignId}', { params: { path: { campaignId: made.id } } })), 404, 'not_found');
    for (const code of codes) expectError(failed(await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })), 404, 'not_found');
    const listed = await ctx.client.GET('/v1/campaigns', { params: { query: { limit: 100, order: '-created_at' } } });
    expect(listed.data?.campaigns?.some((each) => each.id === made.id)).toBe(false);

    // One entry for the campaign; its vouchers went with it.
    const bin = await entriesOf(made.id);
    expect(bin).toEqual({
      object: 'list',
      data_ref: 'data',
      data: [
        {
          id: expect.stringMatching(/^bin_/),
          created_at: expect.any(String),
          deleted_by_user_id: null,
          resource_id: made.id,
          resource_type: 'campaign',
          resource_name: made.name,
          resource_parent_id: null,
          object: 'campaign',
        },
      ],
      total: 1,
      has_more: false,
    });
    for (const code of codes) expect((await entriesOf(code)).total).toBe(0);

    // While binned, the name and the codes are taken.
    const again = await ctx.client.POST('/v1/campaigns', { body: { name: made.name, campaign_type: 'DISCOUNT_COUPONS', voucher: discountTemplate('AGAIN-####') } });
    expectError(failed(again), 409, 'duplicate_found');
    expectError(failed(await voucher(codes[0]!)), 409, 'duplicate_found');

    // Deleting the entry completes the deletion: the entry is gone, the name and codes are free.
    const entryId = bin.data[0]!.id;
    expect((await emptyBinEntry(entryId)).response.status).toBe(204);
    expect((await entriesOf(made.id)).total).toBe(0);
    expectError(failed(await emptyBinEntry(entryId)), 404, 'not_found');
    expect((await campaign(made.name, 0)).name).toBe(made.name);
    expect((await voucher(codes[0]!)).response.status).toBe(200);
  });

  test('when a campaign is deleted with force, then it is gone for good: no bin entry, and its name is free at once', async () => {
    const made = await campaign();
    const [code] = await codesOf(made.id);
    expect(await deletedCampaign(ctx.client, made.id, true)).toMatchObject({ status: 'DONE' });
    expect((await entriesOf(made.id)).total).toBe(0);
    expectError(failed(await ctx.client.GET('/v1/campaigns/{campaignId}', { params: { path: { campaignId: made.id } } })), 404, 'not_found');
    expect((await campaign(made.name, 0)).name).toBe(made.name);
    expect((await voucher(code!)).response.status).toBe(200);
  });

  test('when a loyalty program is deleted without force, then it is in the bin as a campaign and its name stays taken', async () => {
    const name = unique('Binned club');
    const made = await ctx.client.POST('/v1/loyalties', { body: { name, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } });
    const programId = known(made.data, 'id').id;
    expect((await ctx.client.DELETE('/v1/loyalties/{campaignId}', { params: { path: { campaignId: programId } } })).response.status).toBe(204);
    expect((await entriesOf(programId)).data).toEqual([expect.objectContaining({ resource_type: 'campaign', resource_name: name })]);
    const again = await ctx.client.POST('/v1/loyalties', { body: { name, voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } });
    expectError(failed(again), 409, 'duplicate_found');
  });
});

describe('deleting a voucher moves it to the bin', () => {
  test('when a campaign voucher is deleted without force, then it is binned with its campaign as parent, counted once in the summary, and its code stays taken', async () => {
    const made = await campaign(unique('Parent'), 3);
    const [first, second] = await codesOf(made.id);
    expect((await ctx.client.DELETE('/v1/vouchers/{code}', { params: { path: { code: first! } } })).response.status).toBe(204);
    expect((await ctx.client.DELETE('/v1/vouchers/{code}', { params: { path: { code: second! }, query: { force: true } } })).response.status).toBe(204);
    expectError(failed(await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code: first! } } })), 404, 'not_found');
    expect((await codesOf(made.id))).toHaveLength(1);

    const byName = await binPage({ filters: { resource_name: { conditions: { $in: [first!, second!] } } } });
    expect(byName.data).toEqual([
      expect.objectContaining({ resource_type: 'voucher', resource_name: first, resource_parent_id: made.id, object: 'voucher' }),
    ]);
    expectError(failed(await voucher(first!)), 409, 'duplicate_found');
    // A binned voucher is not found for a forced deletion either: it is no longer a voucher.
    expectError(failed(await ctx.client.DELETE('/v1/vouchers/{code}', { params: { path: { code: first! }, query: { force: true } } })), 404, 'not_found');

    const before = await ctx.client.GET('/v1/campaigns/{campaignId}/summary', { params: { path: { campaignId: made.id } } });
    expect(before.data).toMatchObject({ vouchers_created: 3, vouchers_deleted: 2 });
    expect((await emptyBinEntry(byName.data[0]!.id)).response.status).toBe(204);
    const after = await ctx.client.GET('/v1/campaigns/{campaignId}/summary', { params: { path: { campaignId: made.id } } });
    expect(after.data).toMatchObject({ vouchers_created: 3, vouchers_deleted: 2 });
    expect((await voucher(first!)).response.status).toBe(200);
  });

  test('when the bin is paged, then every entry comes once in ID order, both ways, and filters narrow it', async () => {
    const codes = [unique('PAGE'), unique('PAGE'), unique('PAGE')].map((code) => code.toUpperCase());
    for (const code of codes) {
      await voucher(code);
      await ctx.client.DELETE('/v1/vouchers/{code}', { params: { path: { code } } });
    }
    const filters = { resource_name: { conditions: { $in: codes } }, resource_type: { conditions: { $is: 'voucher' } } };
    const seen: { id: string; resource_name: string }[] = [];
    let after: string | undefined;
    for (let page = 0; page < 5; page++) {
      const result = await binPage({ limit: 2, filters, ...(after && { starting_after_id: after }) });
      expect(result.total).toBe(3);
      seen.push(...result.data);
      if (!result.has_more) break;
      after = result.more_starting_after;
    }
    const ids = seen.map((entry) => entry.id);
    expect(ids).toHaveLength(3);
    expect(ids).toEqual([...ids].sort());
    const descending = await binPage({ order: '-id', filters });
    expect(descending.data.map((entry) => entry.id)).toEqual([...ids].reverse());
    // One entry by its ID, or another by its name.
    const byId = seen.find((entry) => entry.resource_name === codes[0])!;
    const either = await binPage({ filters: { junction: 'or', id: { conditions: { $is: byId.id } }, resource_name: { conditions: { $is: codes[2]! } } } });
    expect(either.total).toBe(2);
  });

  test('when the bin is asked with a bad limit, an unknown filter field or operator, or an unknown cursor, then 400; an unknown entry is 404', async () => {
    expectError(await raw(ctx.target, 'GET', '/v1/trash-bin?limit=0'), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/trash-bin?limit=101'), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/trash-bin?order=created_at'), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/trash-bin?filters[deleted_by][conditions][$is]=me'), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/trash-bin?filters[resource_type][conditions][$near]=x'), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/trash-bin?starting_after_id=bin_nothere'), 400, 'invalid_query_params');
    expect(expectError(await raw(ctx.target, 'DELETE', '/v1/trash-bin/bin_nothere'), 404, 'not_found').resource_type).toBe('bin_entry');
  });
});
