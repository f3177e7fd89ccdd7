/**
 * The Node.js SDK `voucherify` 5.2.0, unmodified: its customer, order, product (and SKU) and custom event
 * methods, each called with every field the call can carry, checking what the server keeps.
 */
import { describe, expect, test } from '@jest/globals';
import { known } from './known.js';
import { expectAllCalled, inventoryOf, refusal, useNodeSdk, type Body, type Query, type Reply } from './sdk-node.js';
import { because, managementClientFor, skip, unique, useTarget } from './target.js';

const ctx = useTarget();
/** Product names and SKU names are unique in a project: this run's own, so the suite can run again on the same server. */
const RUN = unique('run');

/** Methods whose scenario the target could not take (it said why with `skip`). */
const excused = new Set<string>();
const node = useNodeSdk(ctx);

type Customer = Reply<'get-customer'>;
type Order = Reply<'get-order'>;
type Product = Reply<'get-product'>;
type Sku = Reply<'create-sku'>;

describe('the Node.js SDK: customers', () => {
  test('when a customer is created, upserted by ID and updated by ID and by source ID with every field, then get and a list filtered by every parameter show it', async () => {
    const { sdk } = node;
    const sourceId = unique('node-customer');
    const name = unique('Ada Node');
    const details = {
      source_id: sourceId,
      name,
      description: 'Met at the spring fair',
      email: `${sourceId}@example.com`,
      phone: '+48 600 100 200',
      // The deprecated spelling of `birthdate`, still documented; the server keeps the date under both.
      birthday: '1990-04-01',
      birthdate: '1990-04-01',
      address: { city: 'Gdansk', state: 'Pomerania', line_1: 'Dluga 1', line_2: 'Flat 3', country: 'Poland', postal_code: '80-001' },
      metadata: { tier: 'new' },
    } satisfies Required<Omit<Body<'create-customer'>, 'id'>>;
    // Without `id` the call creates (a customer with `id` is updated instead: below).
    const created: Customer = await sdk.customers.create(details);
    expect(created).toMatchObject({ ...details, object: 'customer' });
    const id = known(created, 'id').id;
    expect(id).toMatch(/^cust_/);

    const upsert = { ...details, id, source_id: 'ignored-with-an-id', description: 'Came back in autumn', metadata: { tier: 'returning' } } satisfies Required<Body<'create-customer'>>;
    const upserted: Customer = await sdk.customers.create(upsert);
    expect(upserted).toMatchObject({ id, source_id: sourceId, description: 'Came back in autumn', metadata: { tier: 'returning' } });

    expect(await sdk.customers.get(id)).toMatchObject({ id, source_id: sourceId, name });
    expect(await sdk.customers.get(sourceId)).toMatchObject({ id });

    const everyFilter = {
      limit: 10,
      page: 1,
      order: '-created_at',
      starting_after: '2999-01-01T00:00:00.000Z',
      email: details.email,
      name,
      city: 'Gdansk',
      created_at: { after: '2020-01-01' },
      updated_at: { after: '2020-01-01' },
    } satisfies Required<Omit<Query<'list-customers'>, 'segment_id'>>;
    const listed: Reply<'list-customers'> = await sdk.customers.list(everyFilter);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'customers', total: 1, has_more: false });
    expect(listed.customers.map((entry) => entry.id)).toEqual([id]);
    // The reference server has no segments: every segment ID names none.
    expect(await refusal(sdk.customers.list({ segment_id: 'seg_none' }))).toMatchObject({ code: 404, key: 'not_found' });

    // By `id`: the SDK takes it out of the body and into the path; `source_id` stays in the body, ignored.
    const byId = {
      id,
      source_id: sourceId,
      name: `${name} Lovelace`,
      description: null,
      email: `${sourceId}@example.org`,
      phone: null,
      birthday: null,
      birthdate: '1991-05-02',
      address: { city: 'Sopot', state: null, line_1: null, line_2: null, country: 'Poland', postal_code: null },
      metadata: { tier: 'gold' },
    } satisfies Required<Body<'update-customer'>> & { id: string; source_id: string };
    const updated: Customer = await sdk.customers.update(byId);
    expect(updated).toMatchObject({
      id,
      source_id: sourceId,
      name: byId.name,
      description: null,
      email: byId.email,
      phone: null,
      birthdate: '1991-05-02',
      address: byId.address,
      metadata: { tier: 'gold' },
    });
    // By `source_id` alone: it names the customer in the path.
    const bySource: Customer = await sdk.customers.update({ source_id: sourceId, phone: '+48 500 000 000' });
    expect(bySource).toMatchObject({ id, phone: '+48 500 000 000', name: byId.name });
    expect(await sdk.customers.get(id)).toEqual(bySource);

    await sdk.customers.delete(id);
    expect(await refusal(sdk.customers.get(id))).toMatchObject({ code: 404, key: 'not_found' });
    expect(await refusal(sdk.customers.delete(id))).toMatchObject({ code: 404, key: 'not_found' });
  });

  test('when customers are scrolled through in pages, then each one comes once, in order', async () => {
    const { sdk } = node;
    const name = unique('Scrolled');
    const made: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const customer: Customer = await sdk.customers.create({ source_id: unique('node-scrolled'), name });
      made.push(known(customer, 'id').id);
    }
    // The README's ascending order is `created_at`; the SDK pages by `starting_after` until `has_more` is false.
    const ascending: string[] = [];
    for await (const customer of sdk.customers.scroll({ name, limit: 2, order: 'created_at' })) ascending.push(known(customer, 'id').id);
    expect(ascending).toEqual(made);
    const descending: string[] = [];
    for await (const customer of sdk.customers.scroll({ name, limit: 2 })) descending.push(known(customer, 'id').id);
    expect(descending).toEqual([...made].reverse());
  });
});

describe('the Node.js SDK: products', () => {
  test('when a product and its SKUs are created, updated by ID and by source ID, and deleted with every field, then the catalog follows', async () => {
    const { sdk } = node;
    const productSource = unique('node-beans');
    const product = {
      id: unique('prod_node'),
      source_id: productSource,
      name: `Espresso beans ${RUN}`,
      price: 2000,
      attributes: ['size', 'grind'],
      metadata: { origin: 'Brazil' },
      image_url: 'https://images.example.com/beans.png',
    } satisfies Required<Body<'create-product'>>;
    const created: Product = await sdk.products.create(product);
    expect(created).toMatchObject({ ...product, object: 'product' });
    expect(await sdk.products.get(productSource)).toMatchObject({ id: product.id });

    // From the product's own creation, by the server's clock: a window opened earlier would also hold what the
    // scenarios before this one made in it, which depends on how fast they ran.
    const everyFilter = { limit: 100, page: 1, order: '-created_at', start_date: created.created_at!, end_date: '2999-01-01T00:00:00.000Z' } satisfies Required<Query<'list-products'>>;
    const listed: Reply<'list-products'> = await sdk.products.list(everyFilter);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'products' });
    expect(known(listed, 'products').products.map((entry) => entry.id)).toContain(product.id);

    // By `id` (taken out of the body into the path); `source_id` stays in the body and cannot change.
    const changes = {
      id: product.id,
      source_id: productSource,
      name: `Espresso beans, dark roast ${RUN}`,
      price: 2400,
      attributes: ['size', 'grind', 'roast'],
      metadata: { origin: 'Colombia' },
      image_url: null,
    } satisfies Required<Body<'update-product'>> & { id: string; source_id: string };
    const updated: Product = await sdk.products.update(changes);
    expect(updated).toMatchObject({ id: product.id, source_id: productSource, name: changes.name, price: 2400, attributes: changes.attributes, metadata: { origin: 'Colombia' }, image_url: null });
    const bySource: Product = await sdk.products.update({ source_id: productSource, price: 2500 });
    expect(bySource).toMatchObject({ id: product.id, price: 2500, name: changes.name });

    const skuSource = unique('node-beans-1kg');
    const sku = {
      id: unique('sku_node'),
      source_id: skuSource,
      sku: `Espresso beans 1 kg, whole ${RUN}`,
      price: 6500,
      currency: 'EUR',
      attributes: { size: '1kg', grind: 'whole' },
      image_url: 'https://images.example.com/beans-1kg.png',
      metadata: { shelf: 'top' },
    } satisfies Required<Body<'create-sku'>>;
    const createdSku: Sku = await sdk.products.createSku(product.id, sku);
    expect(createdSku).toMatchObject({ ...sku, product_id: product.id, object: 'sku' });
    const other: Sku = await sdk.products.createSku(productSource, { source_id: unique('node-beans-250g'), sku: `Espresso beans 250 g ${RUN}`, attributes: { size: '250g' } });

    const skus: Reply<'list-SKUs-in-product'> = await sdk.products.listSkus(product.id);
    expect(skus).toMatchObject({ object: 'list', data_ref: 'skus', total: 2 });
    expect(known(skus, 'skus').skus.map((entry) => entry.id)).toEqual([sku.id, other.id]);

    // `updateSku` names the SKU by `id` or else `source_id`, as `update` does.
    const skuChanges = {
      id: sku.id,
      sku: `Espresso beans 1 kg, ground ${RUN}`,
      price: 6700,
      currency: 'PLN',
      attributes: { size: '1kg', grind: 'fine' },
      image_url: null,
      metadata: { shelf: 'middle' },
    } satisfies Required<Body<'update-sku'>> & { id: string };
    const updatedSku: Sku = await sdk.products.updateSku(product.id, skuChanges);
    expect(updatedSku).toMatchObject({ id: sku.id, source_id: skuSource, sku: skuChanges.sku, price: 6700, currency: 'PLN', attributes: skuChanges.attributes, image_url: null, metadata: { shelf: 'middle' } });
    const skuBySource: Sku = await sdk.products.updateSku(product.id, { source_id: skuSource, price: 6900 });
    expect(skuBySource).toMatchObject({ id: sku.id, price: 6900 });

    const force = { force: true } satisfies Required<Query<'delete-sku'>>;
    await sdk.products.deleteSku(product.id, sku.id, force);
    expect((await sdk.products.listSkus(product.id)).skus?.map((entry) => entry.id)).toEqual([other.id]);
    // A product with SKUs goes with them.
    await sdk.products.delete(product.id, { force: true } satisfies Required<Query<'delete-product'>>);
    expect(await refusal(sdk.products.get(product.id))).toMatchObject({ code: 404, key: 'not_found' });
    expect(await refusal(sdk.products.deleteSku(product.id, known(other, 'id').id))).toMatchObject({ code: 404 });
    // Without params (the SDK sends no `force` then).
    const plain: Product = await sdk.products.create({ source_id: unique('node-cups'), name: 'Cups' });
    await sdk.products.delete(known(plain, 'id').id);
    expect(await refusal(sdk.products.get(known(plain, 'id').id))).toMatchObject({ code: 404 });
  });
});

describe('the Node.js SDK: orders', () => {
  test('when an order is created and updated by ID and by source ID with every field, then get and the list show it', async () => {
    const { sdk } = node;
    const product: Product = await sdk.products.create({ source_id: unique('node-mug'), name: `Mug ${RUN}`, price: 1500 });
    const sku: Sku = await sdk.products.createSku(known(product, 'id').id, { source_id: unique('node-mug-red'), sku: `Red mug ${RUN}`, price: 1700 });
    const buyer = unique('node-buyer');
    const friend: Customer = await sdk.customers.create({ source_id: unique('node-friend'), name: 'Friend' });
    const sourceId = unique('node-order');
    const line = {
      sku_id: sku.id,
      product_id: product.id,
      related_object: 'sku',
      source_id: sku.source_id!,
      quantity: 2,
      // Computed by the server: accepted and ignored.
      discount_quantity: 0,
      initial_quantity: 2,
      amount: 3400,
      discount_amount: 0,
      initial_amount: 3400,
      price: 1700,
      product: { id: product.id, source_id: product.source_id!, override: false, name: `Mug ${RUN}`, metadata: {}, price: 1500 },
      sku: { id: sku.id, source_id: sku.source_id!, override: false, sku: `Red mug ${RUN}`, price: 1700, metadata: {} },
      metadata: { gift_wrap: true },
      object: 'order_item',
      id: 'ignored-line-id',
      applied_discount_amount: 0,
      applied_discount_quantity: 0,
      applied_quantity: 0,
      applied_quantity_amount: 0,
      subtotal_amount: 3400,
    } satisfies Required<NonNullable<Body<'create-order'>['items']>[number]>;
    const order = {
      // An `id` that names no order is ignored: the server assigns IDs.
      id: 'ord_not_assigned_by_clients',
      source_id: sourceId,
      status: 'CREATED',
      amount: 3400,
      initial_amount: 0,
      discount_amount: 0,
      items: [line],
      metadata: { channel: 'web' },
      created_at: '2001-01-01T00:00:00.000Z',
      referrer_id: known(friend, 'id').id,
      customer: { source_id: buyer, name: 'Buyer', email: `${buyer}@example.com` },
      // Named twice (here and in `referrer_id`), as the same customer.
      referrer: { id: friend.id },
    } satisfies Required<Body<'create-order'>>;
    const created: Order = await sdk.orders.create(order);
    expect(created).toMatchObject({ source_id: sourceId, status: 'CREATED', amount: 3400, metadata: { channel: 'web' }, referrer_id: friend.id, object: 'order' });
    expect(created.id).not.toBe(order.id);
    expect(created.created_at).not.toBe(order.created_at);
    expect(created.items?.[0]).toMatchObject({ sku_id: sku.id, product_id: product.id, quantity: 2, amount: 3400, price: 1700, metadata: { gift_wrap: true } });
    const buyerRecord: Customer = await sdk.customers.get(buyer);
    expect(created.customer_id).toBe(buyerRecord.id);
    const id = known(created, 'id').id;
    expect(await sdk.orders.get(id)).toEqual(created);

    // By `id` (out of the body, into the path), with the fields the server owns sent back and ignored.
    const changes = {
      ...order,
      id,
      status: 'PAID',
      amount: 3000,
      items: [{ ...line, quantity: 1, amount: 1700 }],
      metadata: { channel: 'phone' },
      object: 'order',
      updated_at: null,
      customer_id: null,
      total_amount: 1,
      items_discount_amount: 1,
      total_discount_amount: 1,
      applied_discount_amount: 1,
      items_applied_discount_amount: 1,
      total_applied_discount_amount: 1,
      redemptions: {},
    } satisfies Required<Body<'update-order'>>;
    const updated: Order = await sdk.orders.update(changes);
    expect(updated).toMatchObject({ id, status: 'PAID', amount: 3000, total_amount: 3000, metadata: { channel: 'phone' }, customer_id: buyerRecord.id, updated_at: expect.any(String) });
    expect(updated.items?.map((item) => item.quantity)).toEqual([1]);
    const bySource: Order = await sdk.orders.update({ source_id: sourceId, status: 'FULFILLED' });
    expect(bySource).toMatchObject({ id, status: 'FULFILLED', amount: 3000 });

    const everyParameter = { limit: 100, page: 1, order: '-created_at' } satisfies Required<Query<'list-orders'>>;
    const listed: Reply<'list-orders'> = await sdk.orders.list(everyParameter);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'orders' });
    expect(known(listed, 'orders').orders.find((entry) => entry.id === id)).toEqual(bySource);
  });
});

describe('the Node.js SDK: events', () => {
  test('when a custom event is tracked with every field, then the customer is made, the referral converts and the card earns', async () => {
    const { sdk } = node;
    const { management, projectId } = ctx.target;
    if (!management || !projectId) {
      excused.add('events.create');
      return skip(because('management', 'projectId'), ['track-custom-event']);
    }
    const event = unique('node_joined');
    const schema = await managementClientFor(ctx.target).POST('/management/v1/projects/{projectId}/custom-event-schemas', {
      params: { path: { projectId } },
      body: { name: event, schema: { properties: {} } },
    });
    expect(schema.response.status).toBe(200);

    // A referral program that converts on this event, with a code held by the referrer.
    const referrer: Customer = await sdk.customers.create({ source_id: unique('node-referrer'), name: 'Referrer' });
    const referral = await sdk.campaigns.create({
      name: unique('SDK node referrals'),
      campaign_type: 'REFERRAL_PROGRAM',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } },
      vouchers_count: 1,
      referral_program: { conversion_event_type: 'custom_event', custom_event: { name: event } },
    });
    const published = await sdk.distributions.publications.create({ customer: { id: known(referrer, 'id').id }, campaign: { name: referral.name! } });
    const referralCode = known(known(published, 'voucher').voucher, 'code').code;

    // A loyalty program that gives 25 points for the event, and the new customer's card in it.
    const program = await sdk.loyalties.create({ name: unique('SDK node loyalty'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    await sdk.loyalties.createEarningRule(program.id!, [{ event, loyalty: { type: 'FIXED', points: 25 } }]);
    const sourceId = unique('node-newcomer');
    const card = await sdk.loyalties.createMember(program.id!, { customer: { source_id: sourceId } });

    const tracked = {
      // Named by `source_id` (an `id` would do as well); an existing customer is left as it is, so these
      // details only count for a new one.
      customer: {
        source_id: sourceId,
        name: 'Newcomer',
        description: null,
        email: null,
        phone: null,
        birthday: null,
        birthdate: null,
        address: null,
        metadata: null,
      } satisfies Required<Omit<Body<'track-custom-event'>['customer'], 'id'>>,
      referral: { code: referralCode, referrer_id: known(referrer, 'id').id },
      loyalty: { code: known(card, 'code').code },
      metadata: { source: 'app' },
    } satisfies Required<Omit<Body<'track-custom-event'>, 'event'>>;
    // The SDK puts the event's name into the body as `event`.
    const answer: Reply<'track-custom-event'> = await sdk.events.create(event, tracked);
    expect(answer).toMatchObject({ object: 'event', type: event, metadata: { source: 'app' } });
    expect(answer.customer).toMatchObject({ source_id: sourceId });
    expect(await sdk.loyalties.getMember(program.id!, card.code!)).toMatchObject({ loyalty_card: { points: 25, balance: 25 } });
    expect(await sdk.customers.get(sourceId)).toMatchObject({ referrals: { total: 1 } });
    expect(await sdk.customers.get(known(referrer, 'id').id)).toMatchObject({ loyalty: { referred_customers: 1 } });
  });
});

describe('the Node.js SDK: coverage', () => {
  test('every method of customers, orders, products and events that reaches the contract was called', () => {
    expectAllCalled(node.calls, inventoryOf(['customers', 'orders', 'products', 'events']).filter((method) => !excused.has(method)));
    // Methods the inventory misses: `scroll` is an async generator (its call counts as `list`'s), and
    // `updateSku` and `deleteSku` write their paths on the line after `this.client.<verb>(`.
    expectAllCalled(node.calls, ['customers.scroll', 'products.updateSku', 'products.deleteSku']);
  });
});
