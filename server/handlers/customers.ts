import {
  customerActivities,
  customerActivity,
  deleteCustomer,
  deleteCustomerPermanently,
  findCustomer,
  listCustomers,
  presentCustomer,
  updateCustomer,
  upsertCustomerTold,
} from '../domain/customers.js';
import { segmentMembers } from '../domain/segments.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';
import { FRESH } from '../store/fresh.js';

type CustomerOperations =
  | 'list-customers'
  | 'create-customer'
  | 'get-customer'
  | 'update-customer'
  | 'delete-customer'
  | 'list-customer-activity'
  | 'list-customer-activities'
  | 'customer-permanently-deletion';

export const customerHandlers: HandlersOf<CustomerOperations> = {
  'list-customers': async ({ query, context, services }) => {
    const page = await inProject(services, context, async (ctx) => {
      const members = query.segment_id !== undefined ? await segmentMembers(ctx, query.segment_id) : undefined;
      const found = await listCustomers(ctx, query, members);
      return { ...FRESH, ...found, rows: await Promise.all(found.rows.map((row) => presentCustomer(ctx, row))) };
    });
    return { status: 200, body: { object: 'list', data_ref: 'customers', customers: page.rows, total: page.total, has_more: page.has_more } };
  },
  'create-customer': async ({ body, context, services }) => ({
    status: 200,
    body: await inProject(
      services,
      context,
      async (ctx) => {
        const { customer, holdsNothing } = await upsertCustomerTold(ctx, body);
        return presentCustomer(ctx, customer, { holdsNothing });
      },
      { appends: true },
    ),
  }),
  'get-customer': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => presentCustomer(ctx, await findCustomer(ctx, path.customerId))),
  }),
  'update-customer': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, async (ctx) => presentCustomer(ctx, await updateCustomer(ctx, path.customerId, body)), { optimistic: true }),
  }),
  'delete-customer': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => deleteCustomer(ctx, path.customerId));
    return { status: 204 };
  },
  'list-customer-activity': async ({ path, query, context, services }) => {
    const page = await inProject(services, context, (ctx) => customerActivity(ctx, path.customerId, query));
    return {
      status: 200,
      body: {
        object: 'list',
        data_ref: 'data',
        data: page.rows,
        has_more: page.has_more,
        ...(page.more_starting_after !== undefined && { more_starting_after: page.more_starting_after }),
      },
    };
  },
  'list-customer-activities': async ({ path, query, context, services }) => {
    const page = await inProject(services, context, (ctx) => customerActivities(ctx, path.customerId, query));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: page.rows, total: page.total } };
  },
  'customer-permanently-deletion': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => deleteCustomerPermanently(ctx, path.customerId)),
  }),
};
