/**
 * Metadata schemas, as the public API reads them and as every write of metadata is checked against them.
 */
import { describe, expect, test } from '@jest/globals';
import type { components } from '../../client/index.js';
import { expectError, failed } from './expect-error.js';
import { clientFor, managementClientFor, raw, unique, useTarget, type Target } from './target.js';

type Properties = components['schemas']['MetadataSchemaProperties'];

const ctx = useTarget();
const describeManaged = process.env.CONTRACT_BASE_URL && !process.env.CONTRACT_MANAGEMENT_ID ? describe.skip : describe;

/** A fresh project with one metadata schema, and a client holding the project's key. */
async function projectWithSchema(relatedObject: string, properties: Properties, allowDefinedOnly = false) {
  const management = managementClientFor(ctx.target);
  const project = (await management.POST('/management/v1/projects', { body: { name: unique('Schemas') } })).data!;
  const schema = await management.POST('/management/v1/projects/{projectId}/metadata-schemas', {
    params: { path: { projectId: project.id } },
    body: { related_object: relatedObject, properties, allow_defined_only: allowDefinedOnly },
  });
  expect(schema.response.status).toBe(200);
  const credentials = { appId: project.server_side_key.app_id, appToken: project.server_side_key.app_token };
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

  test('when metadata was stored before the schema, then other changes still work and the next metadata change is checked', async () => {
    const management = managementClientFor(ctx.target);
    const project = (await management.POST('/management/v1/projects', { body: { name: unique('Later') } })).data!;
    const client = clientFor(ctx.target, { appId: project.server_side_key.app_id, appToken: project.server_side_key.app_token });
    const customer = (await client.POST('/v1/customers', { body: { name: 'Early', metadata: { tier: 'legacy' } } })).data!;
    await management.POST('/management/v1/projects/{projectId}/metadata-schemas', {
      params: { path: { projectId: project.id } },
      body: { related_object: 'customer', properties: { tier: { type: 'string', eq: ['gold'] } } },
    });
    const path = { params: { path: { customerId: customer.id } } };
    expect((await client.PUT('/v1/customers/{customerId}', { ...path, body: { name: 'Renamed' } })).response.status).toBe(200);
    expectError(failed(await client.PUT('/v1/customers/{customerId}', { ...path, body: { metadata: { tier: 'silver' } } })), 400, 'invalid_metadata');
    expect((await client.PUT('/v1/customers/{customerId}', { ...path, body: { metadata: { tier: 'gold' } } })).data?.metadata).toEqual({ tier: 'gold' });
  });

  test('when the public API reads schemas, then it sees its own project only, and an unknown type is 404', async () => {
    const { client, schema } = await projectWithSchema('loyalty_tier', { level: { type: 'number' } });
    expect((await client.GET('/v1/metadata-schemas')).data).toEqual({ object: 'list', data_ref: 'schemas', schemas: [schema], total: 1 });
    expect((await client.GET('/v1/metadata-schemas/{resource}', { params: { path: { resource: 'loyalty_tier' } } })).data).toEqual(schema);
    const missing = expectError(failed(await client.GET('/v1/metadata-schemas/{resource}', { params: { path: { resource: 'campaign' } } })), 404, 'not_found');
    expect(missing.resource_type).toBe('metadata_schema');
    expect((await ctx.client.GET('/v1/metadata-schemas')).data?.schemas.some((s) => s.id === schema.id)).toBe(false);
  });
});
