/**
 * `@voucherify/sdk` (server-side), unmodified, against the target: customers, products and their SKUs,
 * product collections, metadata schemas and custom events. Each request is typed with the SDK's own
 * declarations and filled in completely (`Complete<T>` turns every optional field, however deep, into a
 * required one, so a field the SDK declares and the test leaves out fails to compile); each response is read
 * through the type the SDK declares for it.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import sdk from '@voucherify/sdk';
import type {
  CustomerActivityListQueryParams,
  CustomerActivityListResponse,
  CustomerObject,
  CustomersCommonListResponse,
  CustomersCreateBody,
  CustomersCreateResponse,
  CustomersListParams,
  CustomersScrollParams,
  CustomersScrollYield,
  CustomersUpdateParams,
  EventsParams,
  EventsResponse,
  ProductsCreate,
  ProductsCreateResponse,
  ProductsCreateSku,
  ProductsCreateSkuResponse,
  ProductsDeleteParams,
  ProductsDeleteSkuParams,
  ProductsGetResponse,
  ProductsListParams,
  ProductsListResponse,
  ProductsListSkus,
  ProductsUpdate,
  ProductsUpdateSku,
} from '@voucherify/sdk';
// Neither module is re-exported by the package's index; the SDK's methods are declared with them.
import type {
  DynamicProductCollectionBase,
  ProductCollectionsCreateRequestBody,
  ProductCollectionsCreateResponseBody,
  ProductCollectionsListProductsRequestQuery,
  ProductCollectionsListProductsResponseBody,
  ProductCollectionsListRequestQuery,
  ProductCollectionsListResponseBody,
} from '@voucherify/sdk/dist/types/ProductCollections.js';
import type { MetadataSchema, MetadataSchemasListResponse } from '@voucherify/sdk/dist/types/MetadataSchemas.js';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { dataMethods } from './sdk-data-methods.js';
import { PROGRAM_OPERATIONS } from './program-operations.js';
import { recording, voucherifySdkMethods } from './sdk-methods.js';
import { because, managementClientFor, skip, skipPart, unique, useTarget, type Credentials } from './target.js';
import { legacyMethods } from './sdk-legacy-scope.js';

/** Every field of a request type, however deep, made required (and never null). */
type Complete<T> = T extends (infer Item)[] ? Complete<Item>[] : T extends object ? { [Key in keyof T]-?: Complete<NonNullable<T[Key]>> } : T;

const { VoucherifyServerSide } = sdk;
const NAMESPACES = ['customers', 'products', 'productCollections', 'metadataSchemas', 'events'];

const ctx = useTarget();
/** Product names and SKU names are unique in a project: this run's own, so the suite can run again on the same server. */
const RUN = unique('run');
const calls = new Set<string>();

function serverSide(credentials: Credentials = ctx.target.credentials) {
  return recording(VoucherifyServerSide({ applicationId: credentials.appId, secretKey: credentials.appToken, apiUrl: ctx.target.baseUrl }), calls);
}

/** What a refused SDK call throws, as plain fields. */
async function refusal(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    const { code, key } = error as { code: number; key: string };
    return { code, key };
  }
  throw new Error('the call succeeded');
}

/** The SDK types a customer response as a customer or an unconfirmed one; these calls always give a customer. */
function confirmed(response: CustomersCreateResponse): CustomerObject {
  if (response.object !== 'customer') throw new Error(`expected a customer, got ${response.object}`);
  return response;
}

const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe('the SDK: customers', () => {
  test('when a customer is created, upserted by ID, read, updated by ID and by source ID, then every field it sent is kept', async () => {
    const client = serverSide();
    const sourceId = unique('sdk-cust');
    const first = confirmed(await client.customers.create({ source_id: sourceId, name: 'Draft' }));

    // With `id`, create updates that customer (the public API upserts); `source_id` is then ignored.
    const body = {
      id: first.id,
      source_id: unique('ignored'),
      name: 'Ada Lovelace',
      description: 'Counts everything',
      email: 'ada@example.com',
      phone: '+44 20 7946 0000',
      birthday: '1815-12-10',
      birthdate: '1815-12-10',
      address: { city: 'London', state: 'Greater London', line_1: '12 St James Sq', line_2: 'Flat 1', country: 'United Kingdom', postal_code: 'SW1Y 4JH' },
      metadata: { engine: 'analytical' },
    } satisfies Complete<CustomersCreateBody>;
    const upserted = confirmed(await client.customers.create(body));
    const expected = {
      id: first.id,
      source_id: sourceId,
      name: 'Ada Lovelace',
      description: 'Counts everything',
      email: 'ada@example.com',
      phone: '+44 20 7946 0000',
      address: body.address,
      metadata: { engine: 'analytical' },
      object: 'customer',
    };
    expect(upserted).toMatchObject(expected);
    expect(upserted.summary.orders.total_count).toBe(0);
    expect(upserted.loyalty.points).toBe(0);

    const read: CustomerObject = confirmed(await client.customers.get(sourceId));
    expect(read).toMatchObject({ ...expected, created_at: first.created_at });
    expect(read).toMatchObject({ birthday: '1815-12-10', birthdate: '1815-12-10' });

    // The SDK takes the path from `id` and drops it from the body; `source_id` stays in the body, where the
    // API does not document it for an update: it is ignored, as unknown fields are.
    const update = {
      id: first.id,
      source_id: unique('not-applied'),
      name: 'Augusta Ada King',
      description: 'Countess of Lovelace',
      email: 'countess@example.com',
      phone: '+44 20 7946 0001',
      birthday: '1815-12-11',
      birthdate: '1815-12-11',
      address: { city: 'Ockham', state: 'Surrey', line_1: 'Ockham Park', line_2: 'East wing', country: 'United Kingdom', postal_code: 'GU23 6NN' },
      metadata: { engine: 'difference' },
    } satisfies Complete<CustomersUpdateParams>;
    const updated = confirmed(await client.customers.update(update));
    expect(updated).toMatchObject({ id: first.id, source_id: sourceId, name: 'Augusta Ada King', address: update.address, metadata: { engine: 'difference' } });

    // Without `id`, the SDK takes the path from `source_id`.
    const bySource: CustomersUpdateParams = { source_id: sourceId, email: 'ada@lovelace.example' };
    expect(confirmed(await client.customers.update(bySource))).toMatchObject({ id: first.id, email: 'ada@lovelace.example', name: 'Augusta Ada King' });
    expect(confirmed(await client.customers.get(first.id))).toMatchObject({ email: 'ada@lovelace.example', birthdate: '1815-12-11', phone: '+44 20 7946 0001' });
  });

  test('when customers are listed with every filter the SDK declares, then only the matching ones come, newest first, in pages', async () => {
    const client = serverSide();
    const email = `${unique('list')}@example.com`;
    const made: CustomerObject[] = [];
    for (const name of ['One', 'Two', 'Three']) {
      made.push(confirmed(await client.customers.create({ source_id: unique('sdk-list'), name: 'Lister', email, address: { city: 'Gdansk' }, metadata: { name } })));
      await pause(5);
    }
    await client.customers.create({ source_id: unique('sdk-other'), name: 'Lister', email, address: { city: 'Krakow' } });

    const params = {
      limit: 1,
      page: 2,
      email,
      city: 'Gdansk',
      name: 'Lister',
      order: '-created_at',
      // Only customers created before the third one.
      starting_after: new Date(made[2]!.created_at),
    } satisfies Complete<CustomersListParams>;
    const page: CustomersCommonListResponse = await client.customers.list(params);
    expect(page).toMatchObject({ object: 'list', data_ref: 'customers', total: 2, has_more: false });
    expect(page.customers.map((customer) => customer.id)).toEqual([made[0]!.id]);
  });

  test('when customers are scrolled, then every match comes once, in the order asked, across pages', async () => {
    const client = serverSide();
    const email = `${unique('scroll')}@example.com`;
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      ids.push(confirmed(await client.customers.create({ source_id: unique('sdk-scroll'), name: 'Scroller', email, address: { city: 'Lodz' } })).id);
      await pause(5);
    }
    const scrolled = async (params: CustomersScrollParams) => {
      const seen: string[] = [];
      // The SDK declares the generator's `next` as taking a customer, so `for await` does not type-check.
      const customers = client.customers.scroll(params);
      for (let step = await customers.next(); !step.done; step = await customers.next()) {
        const yielded: CustomersScrollYield = step.value;
        expect(yielded).toMatchObject({ email, object: 'customer' });
        seen.push(yielded.id);
      }
      return seen;
    };
    // `page` is left at the first page: the SDK moves the cursor, not the page.
    const oldestFirst = {
      limit: 1,
      page: 1,
      email,
      city: 'Lodz',
      name: 'Scroller',
      order: 'created_at',
      starting_after: '2000-01-01T00:00:00.000Z',
    } satisfies Complete<CustomersScrollParams>;
    expect(await scrolled(oldestFirst)).toEqual(ids);
    expect(await scrolled({ email, limit: 2, order: '-created_at' })).toEqual([...ids].reverse());
    // Without an order the SDK starts from a cursor in 2200 and walks back in time: the list's default
    // order must be newest first for it to see anyone.
    expect(await scrolled({ email, limit: 1 })).toEqual([...ids].reverse());
  });

  test('when a member gains points twice, then the customer activity filtered by every field the SDK declares lists the later gain', async () => {
    const client = serverSide();
    const program = await client.loyalties.create({ name: unique('SDK activity'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    const sourceId = unique('sdk-active');
    const member = await client.loyalties.createMember(program.id, { customer: { source_id: sourceId, name: 'Active' } });
    await client.loyalties.addOrRemoveCardBalance(member.code, { points: 10 });
    await client.loyalties.addOrRemoveCardBalance(member.code, { points: 20 });

    const gains = await client.customers.listActivity(sourceId, { type: 'customer.voucher.loyalty_card.points_added', order: 'created_at' });
    expect(gains.data).toHaveLength(2);
    const params = {
      limit: 5,
      order: 'created_at',
      starting_after_id: String(gains.data[0]!.id),
      campaign_type: 'LOYALTY_PROGRAM',
      campaign_id: program.id,
      category: 'EFFECT',
      type: 'customer.voucher.loyalty_card.points_added',
      start_date: new Date(Date.now() - 3_600_000).toISOString(),
      end_date: new Date(Date.now() + 3_600_000).toISOString(),
    } satisfies Complete<CustomerActivityListQueryParams>;
    const activity: CustomerActivityListResponse = await client.customers.listActivity(sourceId, params);
    expect(activity).toMatchObject({ object: 'list', data_ref: 'data', has_more: false });
    expect(activity.data).toEqual([expect.objectContaining({ id: gains.data[1]!.id, type: 'customer.voucher.loyalty_card.points_added' })]);
  });

  test('when a customer is deleted through the SDK, then it resolves with nothing and the customer is gone', async () => {
    const client = serverSide();
    const made = confirmed(await client.customers.create({ source_id: unique('sdk-gone'), name: 'Leaving' }));
    const deleted: undefined = await client.customers.delete(made.id);
    expect(deleted).toBeFalsy();
    expect(await refusal(client.customers.get(made.id))).toEqual({ code: 404, key: 'not_found' });
  });
});

describe('the SDK: products and SKUs', () => {
  test('when a product is created, read, updated by ID and by source ID, listed and deleted, then each step is kept', async () => {
    const client = serverSide();
    const sourceId = unique('sdk-prod');
    const body = {
      name: 'Espresso beans',
      source_id: sourceId,
      price: 4599,
      attributes: ['origin', 'roast'],
      metadata: { organic: true },
      image_url: 'https://images.example.com/beans.png',
    } satisfies Complete<ProductsCreate>;
    const created: ProductsCreateResponse = await client.products.create(body);
    expect(created).toMatchObject({ ...body, id: expect.stringMatching(/^prod_/), object: 'product', created_at: expect.any(String) });

    const read: ProductsGetResponse = await client.products.get(created.id);
    expect(read).toMatchObject({ ...body, id: created.id, skus: { object: 'list', total: 0, data: [] } });

    // The SDK takes the path from `id` and sends `source_id` in the body, where the API does not document it
    // for an update: it is ignored.
    const update = {
      id: created.id,
      source_id: unique('not-applied'),
      name: 'Espresso beans, dark',
      price: 4999,
      attributes: ['origin', 'roast', 'grind'],
      metadata: { organic: false },
      image_url: 'https://images.example.com/beans-dark.png',
    } satisfies Complete<ProductsUpdate>;
    const updated: ProductsCreateResponse = await client.products.update(update);
    expect(updated).toMatchObject({ id: created.id, source_id: sourceId, name: 'Espresso beans, dark', price: 4999, attributes: ['origin', 'roast', 'grind'], metadata: { organic: false } });
    // Without `id`, the path is the source ID.
    expect(await client.products.update({ source_id: sourceId, price: 5099 })).toMatchObject({ id: created.id, price: 5099, name: 'Espresso beans, dark' });

    const other = await client.products.create({ name: `Filter papers ${RUN}`, source_id: unique('sdk-prod') });
    const params = { page: 1, limit: 100 } satisfies Complete<ProductsListParams>;
    const listed: ProductsListResponse = await client.products.list(params);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'products' });
    expect(listed.total).toBeGreaterThanOrEqual(2);
    // The server is shared with every other test (and the kit's fuzzing), so more than a page of products may
    // come before these two: the pages are read until both are found or the list ends.
    const ids = listed.products.map((product) => product.id);
    for (let page = 2; !(ids.includes(created.id) && ids.includes(other.id)) && (page - 1) * params.limit < listed.total; page++) {
      ids.push(...(await client.products.list({ ...params, page })).products.map((product) => product.id));
    }
    expect(ids).toEqual(expect.arrayContaining([created.id, other.id]));

    const force = { force: true } satisfies Complete<ProductsDeleteParams>;
    await client.products.delete(created.id, force);
    expect(await refusal(client.products.get(created.id))).toEqual({ code: 404, key: 'not_found' });
    // Deleted for good (`force`), the product's source ID is free again.
    expect(await client.products.create({ source_id: sourceId, name: `Reborn ${RUN}` })).toMatchObject({ source_id: sourceId, name: `Reborn ${RUN}` });
  });

  test('when SKUs are created, read, updated by ID and by source ID, listed and deleted, then the product shows them', async () => {
    const client = serverSide();
    const product = await client.products.create({ name: `Mug ${RUN}`, source_id: unique('sdk-mug'), attributes: ['colour', 'size'] });
    const skuSource = unique('sdk-sku');
    const body = {
      sku: `Mug, red, large ${RUN}`,
      source_id: skuSource,
      attributes: { colour: 'red', size: 'L' },
      metadata: { dishwasher: true },
      price: 1299,
      image_url: 'https://images.example.com/mug-red.png',
      currency: 'EUR',
    } satisfies Complete<ProductsCreateSku>;
    const created: ProductsCreateSkuResponse = await client.products.createSku(product.id, body);
    expect(created).toMatchObject({ ...body, id: expect.stringMatching(/^sku_/), object: 'sku', created_at: expect.any(String) });

    const read: ProductsCreateSkuResponse = await client.products.getSku(created.id);
    expect(read).toMatchObject({ ...body, id: created.id });

    const update = {
      id: created.id,
      // Not documented for an update: ignored, the SKU keeps its source ID.
      source_id: unique('not-applied'),
      sku: 'Mug, crimson, large',
      attributes: { colour: 'crimson', size: 'L' },
      metadata: { dishwasher: false },
      price: 1399,
      image_url: 'https://images.example.com/mug-crimson.png',
      currency: 'PLN',
    } satisfies Complete<ProductsUpdateSku>;
    const updated: ProductsCreateSkuResponse = await client.products.updateSku(product.id, update);
    expect(updated).toMatchObject({ id: created.id, source_id: skuSource, sku: 'Mug, crimson, large', price: 1399, currency: 'PLN', attributes: { colour: 'crimson', size: 'L' } });
    expect(await client.products.updateSku(product.id, { source_id: skuSource, sku: 'Mug, crimson, L', price: 1499 })).toMatchObject({ id: created.id, price: 1499, currency: 'PLN' });

    const second = await client.products.createSku(product.id, { sku: `Mug, blue, small ${RUN}`, attributes: { colour: 'blue', size: 'S' } });
    const listed: ProductsListSkus = await client.products.listSkus(product.id);
    expect(listed).toMatchObject({ object: 'list', total: 2 });
    expect(listed.skus.map((sku) => sku.id).sort()).toEqual([created.id, second.id].sort());
    expect((await client.products.get(product.id)).skus).toMatchObject({ total: 2 });

    const force = { force: true } satisfies Complete<ProductsDeleteSkuParams>;
    await client.products.deleteSku(product.id, created.id, force);
    expect(await refusal(client.products.getSku(created.id))).toEqual({ code: 404, key: 'not_found' });
    expect((await client.products.listSkus(product.id)).skus.map((sku) => sku.id)).toEqual([second.id]);
    // Forced, the SKU's source ID is free again.
    expect(await client.products.createSku(product.id, { sku: `Mug, red, again ${RUN}`, source_id: skuSource })).toMatchObject({ source_id: skuSource });
  });
});

describe('the SDK: product collections', () => {
  test('when a static and an automatic collection are created, read, listed and deleted, then each holds the products it names', async () => {
    const client = serverSide();
    const marker = unique('sdk-coll');
    const tea = await client.products.create({ name: `Tea ${RUN}`, source_id: unique('sdk-tea'), price: 1500, metadata: { shelf: marker } });
    const cup = await client.products.create({ name: `Cup ${RUN}`, source_id: unique('sdk-cup'), price: 800 });
    const cupSku = await client.products.createSku(cup.id, { sku: `Cup, white ${RUN}`, price: 900 });

    const fixed = {
      name: unique('Static'),
      type: 'STATIC',
      products: [
        { id: cupSku.id, product_id: cup.id, object: 'sku' },
        { id: tea.id, object: 'product' },
      ],
    } satisfies ProductCollectionsCreateRequestBody & Complete<ProductCollectionsCreateRequestBody>;
    const created: ProductCollectionsCreateResponseBody = await client.productCollections.create(fixed);
    expect(created).toMatchObject({ ...fixed, id: expect.stringMatching(/^pc_/), object: 'products_collection', created_at: expect.any(String) });
    expect(await client.productCollections.get(created.id)).toMatchObject({ id: created.id, name: fixed.name, type: 'STATIC' });

    const automatic = {
      name: unique('Automatic'),
      type: 'AUTO_UPDATE',
      filter: { junction: 'and', [`metadata.shelf`]: { conditions: { $is: [marker] } } },
      // The filter is a map of fields to conditions: it names the ones it uses, not every one the SDK lists.
    } satisfies Complete<Omit<DynamicProductCollectionBase, 'filter'>> & Required<DynamicProductCollectionBase>;
    const dynamic: ProductCollectionsCreateResponseBody = await client.productCollections.create(automatic);
    expect(dynamic).toMatchObject({ name: automatic.name, type: 'AUTO_UPDATE', filter: automatic.filter });

    const query = { limit: 1, page: 2 } satisfies Complete<ProductCollectionsListProductsRequestQuery>;
    const members: ProductCollectionsListProductsResponseBody = await client.productCollections.listProducts(created.id, query);
    expect(members).toMatchObject({ object: 'list', data_ref: 'data', total: 2 });
    expect(members.data).toHaveLength(1);
    const all = await client.productCollections.listProducts(created.id);
    const sku = all.data.find((item) => item.object === 'sku');
    const product = all.data.find((item) => item.object === 'product');
    expect(sku).toMatchObject({ id: cupSku.id, product_id: cup.id, sku: `Cup, white ${RUN}`, price: 900, product: { id: cup.id, name: `Cup ${RUN}`, price: 800, object: 'product' } });
    expect(product).toMatchObject({ id: tea.id, name: `Tea ${RUN}`, price: 1500, source_id: tea.source_id });
    expect((await client.productCollections.listProducts(dynamic.id)).data.map((item) => item.id)).toEqual([tea.id]);

    const listQuery = { limit: 100, page: 1, order: '-created_at' } satisfies Complete<ProductCollectionsListRequestQuery>;
    const listed: ProductCollectionsListResponseBody = await client.productCollections.list(listQuery);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'data' });
    const ids = listed.data.map((collection) => collection.id);
    expect(ids.indexOf(dynamic.id)).toBeLessThan(ids.indexOf(created.id));
    expect(ids.indexOf(dynamic.id)).toBeGreaterThanOrEqual(0);

    await client.productCollections.delete(created.id);
    expect(await refusal(client.productCollections.get(created.id))).toEqual({ code: 404, key: 'not_found' });
  });
});

describe('the SDK: metadata schemas', () => {
  test('when a project defines a customer schema, then the SDK lists it with the standard ones and reads it by resource', async () => {
    // Every project has a schema for each standard resource, empty until properties are defined.
    const own = serverSide();
    const standardOnly: MetadataSchemasListResponse = await own.metadataSchemas.list();
    expect(standardOnly.schemas.map((schema) => schema.related_object)).toEqual(expect.arrayContaining(['customer', 'product', 'order', 'voucher']));
    const standard: MetadataSchema = await own.metadataSchemas.get('product');
    expect(standard).toMatchObject({ related_object: 'product', object: 'metadata_schema' });

    if (!ctx.target.management) return skip(because('management'), ['get-metadata-schema']);
    const management = managementClientFor(ctx.target);
    const project = (await management.POST('/management/v1/projects', { body: { name: unique('SDK schemas') } })).data!;
    const properties = {
      tier: { type: 'string' as const, optional: false, eq: ['gold', 'silver'] },
      code: { type: 'string' as const, exactLength: 6 },
      nickname: { type: 'string' as const, minLength: 2, maxLength: 8 },
      score: { type: 'number' as const, gte: 1, lte: 5 },
      discount: { type: 'number' as const, gt: 0, lt: 100 },
      banned: { type: 'string' as const, ne: ['root'] },
      tags: { type: 'string' as const, array: true },
      address: { type: 'object' as const, objectType: null },
    };
    const defined = await management.POST('/management/v1/projects/{projectId}/metadata-schemas', {
      params: { path: { projectId: project.id } },
      body: { related_object: 'customer', properties, allow_defined_only: true },
    });
    expect(defined.response.status).toBe(200);
    const client = serverSide({ appId: project.server_side_key!.app_id!, appToken: project.server_side_key!.app_token! });

    const listed: MetadataSchemasListResponse = await client.metadataSchemas.list();
    expect(listed).toMatchObject({ object: 'list', data_ref: 'schemas' });
    expect(listed.total).toBe(listed.schemas.length);
    const resources = listed.schemas.map((schema) => schema.related_object);
    expect(resources).toEqual(expect.arrayContaining(['customer', 'product', 'order', 'voucher']));

    const schema: MetadataSchema = await client.metadataSchemas.get('customer');
    expect(schema).toMatchObject({ id: defined.data!.id, related_object: 'customer', allow_defined_only: true, object: 'metadata_schema', created_at: expect.any(String) });
    expect(schema.properties.tier).toMatchObject({ type: 'string', array: false, optional: false, eq: ['gold', 'silver'] });
    expect(schema.properties.code?.exactLength).toBe(6);
    expect(schema.properties.nickname).toMatchObject({ minLength: 2, maxLength: 8 });
    expect(schema.properties.score).toMatchObject({ type: 'number', gte: 1, lte: 5 });
    expect(schema.properties.discount).toMatchObject({ gt: 0, lt: 100 });
    expect(schema.properties.banned?.ne).toEqual(['root']);
    expect(schema.properties.tags).toMatchObject({ array: true, optional: true });
    expect(schema.properties.address?.type).toBe('object');
    expect(listed.schemas.find((entry) => entry.related_object === 'customer')).toEqual(schema);
    expect(await client.metadataSchemas.get('product')).toMatchObject({ related_object: 'product', properties: {}, object: 'metadata_schema' });
    // Each project reads its own schemas: the contract project's customers are not held to this one.
    expect((await own.metadataSchemas.get('customer')).properties).not.toHaveProperty('tier');
  });
});

describe('the SDK: custom events', () => {
  const VISITED = unique('sdk-visited');
  const runs = () => Boolean(ctx.target.management && ctx.target.projectId);

  beforeAll(async () => {
    if (!runs()) return;
    const schema = await managementClientFor(ctx.target).POST('/management/v1/projects/{projectId}/custom-event-schemas', {
      params: { path: { projectId: ctx.target.projectId! } },
      body: { name: VISITED, schema: { properties: { booth: { type: 'number' } } } },
    });
    expect(schema.response.status).toBe(200);
  });

  test('when an event names a referral code and a loyalty card, then the referral converts and the card earns the event points', async () => {
    if (!runs()) return skip(because('management', 'projectId'));
    const client = serverSide();
    // A referral program converting on this event, and a referrer holding its code.
    const referrer = confirmed(await client.customers.create({ source_id: unique('sdk-referrer'), name: 'Referrer' }));
    const referral = (
      await ctx.client.POST('/v1/campaigns', {
        body: {
          name: unique('SDK referral'),
          campaign_type: 'REFERRAL_PROGRAM',
          voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } },
          referral_program: { conversion_event_type: 'custom_event', custom_event: { name: VISITED } },
          vouchers_count: 1,
        },
      })
    ).data!;
    const published = await ctx.client.POST('/v1/publications', { body: { campaign: { name: referral.name! }, customer: { id: referrer.id } } });
    const referralCode = published.data!.voucher!.code!;

    // A loyalty program earning 7 points on this event, and the referee's card.
    const program = await client.loyalties.create({ name: unique('SDK event points'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    await client.loyalties.createEarningRule(program.id, [{ event: VISITED, loyalty: { type: 'FIXED', points: 7 } }]);
    const refereeSource = unique('sdk-referee');
    const referee = confirmed(await client.customers.create({ source_id: refereeSource, name: 'Referee' }));
    const card = await client.loyalties.createMember(program.id, { customer: { id: referee.id } });

    const body = {
      event: VISITED,
      customer: {
        id: referee.id,
        // With `id`, the customer is found by it; an event never changes an existing customer.
        source_id: refereeSource,
        name: 'Not applied',
        description: 'Not applied',
        email: 'not-applied@example.com',
        phone: '+48 600 000 000',
        birthday: '2000-01-01',
        birthdate: '2000-01-01',
        address: { city: 'Torun', state: 'Kuyavia', line_1: 'Rynek 1', line_2: 'Floor 2', country: 'Poland', postal_code: '87-100' },
        metadata: { ignored: true },
      },
      metadata: { booth: 12 },
      referral: { code: referralCode, referrer_id: referrer.id },
      loyalty: { code: card.code },
    } satisfies Complete<EventsParams>;
    const tracked: EventsResponse = await client.events.create(VISITED, body);
    expect(tracked).toMatchObject({ object: 'event', type: VISITED });

    expect(await client.loyalties.getMember(program.id, card.code)).toMatchObject({ loyalty_card: { points: 7, balance: 7 } });
    const after = confirmed(await client.customers.get(referee.id));
    expect(after).toMatchObject({ name: 'Referee' });
    expect((after as unknown as { referrals: { total: number; campaigns: { campaign_id: string; referrer_id: string }[] } }).referrals).toMatchObject({
      total: 1,
      campaigns: [{ campaign_id: referral.id, referrer_id: referrer.id }],
    });
    const referrerAfter = confirmed(await client.customers.get(referrer.id));
    expect(referrerAfter.loyalty.referred_customers).toBe(1);
  });

  test('when the event is not defined or its loyalty card does not exist, then the SDK call is refused', async () => {
    const client = serverSide();
    // The SDK puts the name it is given in `event`, over the one in the parameters.
    expect(await refusal(client.events.create(unique('undefined-event'), { event: VISITED, customer: { source_id: unique('sdk-ev') } }))).toEqual({ code: 404, key: 'not_found' });
    if (!runs()) return skipPart(because('management', 'projectId'));
    expect(await refusal(client.events.create(VISITED, { event: VISITED, customer: { source_id: unique('sdk-ev') }, loyalty: { code: unique('NO-CARD') } }))).toEqual({
      code: 404,
      key: 'not_found',
    });
  });
});

describe('the SDK: coverage', () => {
  test('every method of customers, products, productCollections, metadataSchemas and events that reaches the contract was called', () => {
    const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8'));
    const expected = voucherifySdkMethods(contract)
      // Methods reaching the bin, template, referral and deprecated loyalty/customer families are sdk-programs.test.ts's.
      .filter((method) => method.operationId && NAMESPACES.includes(method.name.split('.')[0]!) && !PROGRAM_OPERATIONS.has(method.operationId))
      .map((method) => method.name);
    const called = [...calls].filter((name) => NAMESPACES.includes(name.split('.')[0]!));
    // `customers.listRedeemables` is sdk-legacy.test.ts's; imports, bulk jobs and transaction exports are
    // called in sdk-data.test.ts.
    const elsewhere = [...legacyMethods('@voucherify/sdk'), ...dataMethods('@voucherify/sdk')];
    expect([...new Set(expected)].filter((name) => !called.includes(name) && !elsewhere.includes(name)).sort()).toEqual([]);
  });
});
