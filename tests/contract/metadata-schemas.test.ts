/**
 * Metadata schemas, as the public API reads them and as every write of metadata is checked against them.
 */
import { describe, expect, test } from '@jest/globals';
import type { components } from '../../client/index.js';
import { expectError, failed } from './expect-error.js';
import { clientFor, managementClientFor, raw, runsWith, unique, useTarget, type Target } from './target.js';

type Properties = components['schemas']['MetadataSchemaProperties'];

const ctx = useTarget();
const describeManaged = runsWith(describe, ['management']);

/** A fresh project with one metadata schema, and a client holding the project's key. */
async function projectWithSchema(relatedObject: string, properties: Properties, allowDefinedOnly = false) {
  const management = managementClientFor(ctx.target);
  const project = (await management.POST('/management/v1/projects', { body: { name: unique('Schemas') } })).data!;
  const schema = await management.POST('/management/v1/projects/{projectId}/metadata-schemas', {
    params: { path: { projectId: project.id } },
    body: { related_object: relatedObject, properties, allow_defined_only: allowDefinedOnly },
  });
  expect(schema.response.status).toBe(200);
  const credentials = { appId: project.server_side_key!.app_id!, appToken: project.server_side_key!.app_token! };
  const target: Target = { ...ctx.target, credentials };
  return { projectId: project.id, schema: schema.data!, client: clientFor(ctx.target, credentials), target };
}

const customerProperties: Properties = {
  tier: { type: 'string', optional: false, eq: ['gold', 'silver'] },
  code: { type: 'string', exactLength: 6 },
  nickname: { type: 'string', minLength: 2, maxLength: 5 },
  visits: { type: 'number', min: 0, max: 1000 },
  discount: { type: 'number', gt: 0, lt: 100 },
  score: { type: 'number', gte: 1, lte: 5 },
  banned: { type: 'string', ne: ['root'] },
  vip: { type: 'boolean' },
  birthday: { type: 'date' },
  last_seen: { type: 'datetime' },
  home: { type: 'geopoint' },
  avatar: { type: 'image_url' },
  preferences: { type: 'object' },
  tags: { type: 'string', array: true, maxLength: 5 },
};

describeManaged('metadata schema enforcement', () => {
  test('when customer metadata follows the schema, then it is stored; each broken rule is a 400 naming the field and rule', async () => {
    const { target } = await projectWithSchema('customer', customerProperties, true);
    const good = {
      tier: 'gold',
      code: 'ABC123',
      nickname: 'Jo',
      visits: 3,
      discount: 10,
      score: 5,
      banned: 'user',
      vip: true,
      birthday: '1990-05-17',
      last_seen: '2026-11-21T10:15:30.000Z',
      home: { latitude: 52.23, longitude: 21.01 },
      avatar: 'https://img.example.com/jo.png',
      preferences: { newsletter: true },
      tags: ['a', 'bb'],
    };
    const made = await raw(target, 'POST', '/v1/customers', { body: JSON.stringify({ name: 'Jo', metadata: good }) });
    expect(made.status).toBe(200);
    expect((made.body as { metadata: unknown }).metadata).toEqual(good);

    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['a required property missing', { ...good, tier: undefined }, /metadata\.tier is required .*optional: false/],
      ['a value outside eq', { ...good, tier: 'bronze' }, /metadata\.tier must be one of gold, silver .*eq/],
      ['a wrong type', { ...good, visits: 'three' }, /metadata\.visits must be a number .*type: number/],
      ['a wrong exact length', { ...good, code: 'ABC' }, /metadata\.code .*exactLength/],
      ['a string too short', { ...good, nickname: 'J' }, /metadata\.nickname .*minLength/],
      ['a string too long', { ...good, nickname: 'Joanna' }, /metadata\.nickname .*maxLength/],
      ['a number below min', { ...good, visits: -1 }, /metadata\.visits .*rule: min/],
      ['a number above max', { ...good, visits: 1001 }, /metadata\.visits .*rule: max/],
      ['a number not greater than gt', { ...good, discount: 0 }, /metadata\.discount .*rule: gt/],
      ['a number not less than lt', { ...good, discount: 100 }, /metadata\.discount .*rule: lt/],
      ['a number below gte', { ...good, score: 0 }, /metadata\.score .*rule: gte/],
      ['a number above lte', { ...good, score: 6 }, /metadata\.score .*rule: lte/],
      ['a value in ne', { ...good, banned: 'root' }, /metadata\.banned .*rule: ne/],
      ['a malformed date', { ...good, birthday: '1990-13-45' }, /metadata\.birthday .*type: date/],
      ['a malformed date-time', { ...good, last_seen: 'yesterday' }, /metadata\.last_seen .*type: datetime/],
      ['a geopoint off the globe', { ...good, home: { latitude: 95, longitude: 0 } }, /metadata\.home .*type: geopoint/],
      ['an image URL that is not http', { ...good, avatar: 'ftp://img.example.com/a.png' }, /metadata\.avatar .*type: image_url/],
      ['a scalar where an array is defined', { ...good, tags: 'a' }, /metadata\.tags .*rule: array/],
      ['an array element breaking a rule', { ...good, tags: ['ok', 'toolong'] }, /metadata\.tags .*maxLength/],
      ['an undefined property', { ...good, colour: 'red' }, /metadata\.colour is not defined .*allow_defined_only/],
    ];
    for (const [, metadata, details] of cases) {
      const response = await raw(target, 'POST', '/v1/customers', { body: JSON.stringify({ name: 'Bad', metadata }) });
      expect(expectError(response, 400, 'invalid_metadata').details).toMatch(details);
    }
    const updated = await raw(target, 'PUT', `/v1/customers/${(made.body as { id: string }).id}`, {
      body: JSON.stringify({ metadata: { ...good, vip: 'yes' } }),
    });
    expect(expectError(updated, 400, 'invalid_metadata').details).toMatch(/metadata\.vip .*type: boolean/);
  });

  test('when a resource type has a schema, then products, vouchers and orders are checked too; a failed write leaves nothing', async () => {
    const properties: Properties = { origin: { type: 'string', optional: false } };
    const products = await projectWithSchema('product', properties);
    expectError(failed(await products.client.POST('/v1/products', { body: { name: 'No origin' } })), 400, 'invalid_metadata');
    expect((await products.client.GET('/v1/products')).data?.total).toBe(0);
    expect((await products.client.POST('/v1/products', { body: { name: 'Beans', metadata: { origin: 'Peru' } } })).response.status).toBe(200);

    const vouchers = await projectWithSchema('voucher', properties);
    const code = unique('META');
    const bad = await vouchers.client.POST('/v1/vouchers/{code}', {
      params: { path: { code } },
      body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
    });
    expectError(failed(bad), 400, 'invalid_metadata');
    expectError(failed(await vouchers.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })), 404, 'not_found');

    const orders = await projectWithSchema('order', { channel: { type: 'string', eq: ['web', 'store'] } });
    const order = await orders.client.POST('/v1/orders', { body: { amount: 1000, metadata: { channel: 'phone' } } });
    expect(expectError(failed(order), 400, 'invalid_metadata').details).toMatch(/metadata\.channel/);
  });

  // Every other resource that carries metadata: a write missing the required property is refused and leaves
  // nothing behind; the same write with it succeeds. Each case sets up what it needs in a fresh project.
  type Client = Awaited<ReturnType<typeof projectWithSchema>>['client'];
  const ORIGIN = { origin: 'Peru' };
  const writes: [string, (client: Client, metadata: Record<string, unknown> | undefined) => Promise<{ response: Response }>, (client: Client) => Promise<number>][] = [
    [
      'sku',
      async (client, metadata) => {
        // The product made by an earlier attempt stays (a 409 the second time); its source ID names it.
        await client.POST('/v1/products', { body: { source_id: 'beans' } });
        return client.POST('/v1/products/{productId}/skus', { params: { path: { productId: 'beans' } }, body: { sku: unique('sku'), metadata } });
      },
      async (client) => (await client.GET('/v1/products/{productId}/skus', { params: { path: { productId: 'beans' } } })).data!.total,
    ],
    [
      'campaign',
      (client, metadata) => client.POST('/v1/campaigns', { body: { name: unique('Promo'), campaign_type: 'PROMOTION', metadata } }),
      async (client) => (await client.GET('/v1/campaigns')).data!.total!,
    ],
    [
      'promotion_tier',
      async (client, metadata) => {
        const campaign = (await client.POST('/v1/campaigns', { body: { name: unique('Promo'), campaign_type: 'PROMOTION' } })).data!;
        return client.POST('/v1/promotions/{campaignId}/tiers', { params: { path: { campaignId: campaign.id! } }, body: { name: 'Tier', metadata } });
      },
      async (client) => (await client.GET('/v1/promotions/tiers')).data!.total!,
    ],
    [
      'redemption',
      async (client, metadata) => {
        const code = unique('RED');
        await client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
        return client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 1000 }, metadata } });
      },
      async (client) => (await client.GET('/v1/redemptions')).data!.total,
    ],
    [
      'reward',
      (client, metadata) => client.POST('/v1/rewards', { body: { name: 'Points', type: 'COIN', parameters: { coin: { exchange_ratio: 1, points_ratio: 10 } }, metadata } }),
      async (client) => (await client.GET('/v1/rewards')).data!.total,
    ],
    [
      'loyalty_tier',
      async (client, metadata) => {
        const program = (await client.POST('/v1/loyalties', { body: { name: unique('Club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } })).data!;
        return client.POST('/v1/loyalties/{campaignId}/tiers', { params: { path: { campaignId: program.id! } }, body: [{ name: 'Silver', points: { from: 0, to: 99 }, metadata }] });
      },
      async (client) => {
        const programs = (await client.GET('/v1/loyalties')).data!.campaigns;
        const lists = await Promise.all(programs!.map((program) => client.GET('/v1/loyalties/{campaignId}/tiers', { params: { path: { campaignId: program.id! } } })));
        return lists.reduce((sum, list) => sum + list.data!.total!, 0);
      },
    ],
    [
      'earning_rule',
      async (client, metadata) => {
        const program = (await client.POST('/v1/loyalties', { body: { name: unique('Club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } })).data!;
        return client.POST('/v1/loyalties/{campaignId}/earning-rules', {
          params: { path: { campaignId: program.id! } },
          body: [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 5 }, metadata }],
        });
      },
      async (client) => {
        const programs = (await client.GET('/v1/loyalties')).data!.campaigns;
        const lists = await Promise.all(programs!.map((program) => client.GET('/v1/loyalties/{campaignId}/earning-rules', { params: { path: { campaignId: program.id! } } })));
        return lists.reduce((sum, list) => sum + list.data!.total!, 0);
      },
    ],
    [
      'publication',
      async (client, metadata) => {
        const code = unique('PUB');
        await client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
        return client.POST('/v1/publications', { body: { customer: { source_id: unique('holder') }, voucher: code, metadata } });
      },
      async (client) => (await client.GET('/v1/publications')).data!.total,
    ],
  ];

  test.each(writes)('when a %s schema requires a property, then a write without it is a 400 that leaves nothing, and with it succeeds', async (relatedObject, write, count) => {
    const { client } = await projectWithSchema(relatedObject, { origin: { type: 'string', optional: false } });
    const refused = await write(client, undefined);
    expect(expectError(failed(refused as never), 400, 'invalid_metadata').details).toMatch(new RegExp(`metadata\\.origin is required \\(${relatedObject} metadata schema`));
    expect(await count(client)).toBe(0);
    const accepted = await write(client, ORIGIN);
    expect(accepted.response.status).toBe(200);
    // One row at least (a redemption lists its parent and its child).
    expect(await count(client)).toBeGreaterThan(0);
  });

  test('when an object property names a custom type with a schema, then its values are checked against it, by path', async () => {
    const { projectId, target } = await projectWithSchema('customer', {
      home: { type: 'object', objectType: 'address' },
      stops: { type: 'object', objectType: 'address', array: true },
      notes: { type: 'object', objectType: 'free_form' },
    });
    await managementClientFor(ctx.target).POST('/management/v1/projects/{projectId}/metadata-schemas', {
      params: { path: { projectId } },
      body: { related_object: 'address', allow_defined_only: true, properties: { city: { type: 'string', optional: false }, zip: { type: 'string', exactLength: 5 } } },
    });
    const create = (metadata: Record<string, unknown>) => raw(target, 'POST', '/v1/customers', { body: JSON.stringify({ name: 'Nested', metadata }) });
    const good = { home: { city: 'Lima', zip: '15001' }, stops: [{ city: 'Cusco' }], notes: { anything: [1, 2] } };
    expect((await create(good)).status).toBe(200);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...good, home: { zip: '15001' } }, /metadata\.home\.city is required \(address metadata schema rule: optional: false\)/],
      [{ ...good, home: { city: 'Lima', zip: '150' } }, /metadata\.home\.zip .*exactLength/],
      [{ ...good, stops: [{ city: 'Cusco' }, { city: 'Puno', floor: 2 }] }, /metadata\.stops\[1\]\.floor is not defined .*allow_defined_only/],
    ];
    for (const [metadata, details] of cases) expect(expectError(await create(metadata), 400, 'invalid_metadata').details).toMatch(details);
  });

  test('when metadata was stored before the schema, then other changes still work and the next metadata change is checked', async () => {
    const management = managementClientFor(ctx.target);
    const project = (await management.POST('/management/v1/projects', { body: { name: unique('Later') } })).data!;
    const client = clientFor(ctx.target, { appId: project.server_side_key!.app_id, appToken: project.server_side_key!.app_token });
    const customer = (await client.POST('/v1/customers', { body: { name: 'Early', metadata: { tier: 'legacy' } } })).data!;
    await management.POST('/management/v1/projects/{projectId}/metadata-schemas', {
      params: { path: { projectId: project.id } },
      body: { related_object: 'customer', properties: { tier: { type: 'string', eq: ['gold'] } } },
    });
    const path = { params: { path: { customerId: customer.id! } } };
    expect((await client.PUT('/v1/customers/{customerId}', { ...path, body: { name: 'Renamed' } })).response.status).toBe(200);
    expectError(failed(await client.PUT('/v1/customers/{customerId}', { ...path, body: { metadata: { tier: 'silver' } } })), 400, 'invalid_metadata');
    expect((await client.PUT('/v1/customers/{customerId}', { ...path, body: { metadata: { tier: 'gold' } } })).data?.metadata).toEqual({ tier: 'gold' });
  });

  test('when the public API reads schemas, then it sees its own project only, and an unknown custom type is 404', async () => {
    const { client, schema } = await projectWithSchema('loyalty_tier', { level: { type: 'number' } });
    const list = (await client.GET('/v1/metadata-schemas')).data!;
    expect(list).toMatchObject({ object: 'list', data_ref: 'schemas', total: 12 });
    expect(list.schemas?.at(-1)).toEqual(schema);
    expect((await client.GET('/v1/metadata-schemas/{resource}', { params: { path: { resource: 'loyalty_tier' } } })).data).toEqual(schema);
    const missing = expectError(failed(await client.GET('/v1/metadata-schemas/{resource}', { params: { path: { resource: 'address' } } })), 404, 'not_found');
    expect(missing.resource_type).toBe('metadata_schema');
    expect((await ctx.client.GET('/v1/metadata-schemas')).data?.schemas?.some((s) => s.id === schema.id)).toBe(false);
  });

  test('when no property is defined for a standard resource, then its schema is there, empty, stable and dated from the project', async () => {
    const management = managementClientFor(ctx.target);
    const project = (await management.POST('/management/v1/projects', { body: { name: unique('Standard') } })).data!;
    const client = clientFor(ctx.target, { appId: project.server_side_key!.app_id, appToken: project.server_side_key!.app_token });
    const standard = ['campaign', 'customer', 'earning_rule', 'loyalty_tier', 'order', 'order_item', 'product', 'promotion_tier', 'publication', 'redemption', 'reward', 'voucher'];
    const read = async (resource: string) => client.GET('/v1/metadata-schemas/{resource}', { params: { path: { resource } } });
    const product = (await read('product')).data!;
    expect(product).toEqual({
      id: expect.stringMatching(/^ms_/),
      related_object: 'product',
      properties: {},
      allow_defined_only: false,
      created_at: project.created_at,
      updated_at: null,
      object: 'metadata_schema',
    });
    expect((await read('product')).data).toEqual(product);
    const list = (await client.GET('/v1/metadata-schemas')).data!;
    expect(list.total).toBe(12);
    expect(list.schemas?.map((schema) => schema.related_object)).toEqual(standard);
    expect(new Set(list.schemas?.map((schema) => schema.id)).size).toBe(12);
    expect(list.schemas?.find((schema) => schema.related_object === 'product')).toEqual(product);
    expect((await ctx.client.GET('/v1/metadata-schemas/{resource}', { params: { path: { resource: 'product' } } })).data?.id).not.toBe(product.id);
    expectError(failed(await read('sku_like_custom')), 404, 'not_found');

    // Defined, the schema is the stored one; removed again, it is the empty standard one.
    const path = { projectId: project.id };
    const defined = (await management.POST('/management/v1/projects/{projectId}/metadata-schemas', { params: { path }, body: { related_object: 'product', properties: { origin: { type: 'string' } } } })).data!;
    expect((await read('product')).data).toEqual(defined);
    expect((await client.GET('/v1/metadata-schemas')).data?.total).toBe(12);
    await management.DELETE('/management/v1/projects/{projectId}/metadata-schemas/{metadataSchemaId}', { params: { path: { ...path, metadataSchemaId: defined.id } } });
    expect((await read('product')).data).toEqual(product);
  });
});
