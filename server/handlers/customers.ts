import { deleteCustomer, findCustomer, listCustomers, updateCustomer, upsertCustomer } from '../domain/customers.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

type CustomerOperations = 'list-customers' | 'create-customer' | 'get-customer' | 'update-customer' | 'delete-customer';

export const customerHandlers: HandlersOf<CustomerOperations> = {
  'list-customers': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listCustomers(ctx, query));
    return { status: 200, body: { object: 'list', data_ref: 'customers', customers: page.rows, total: page.total } };
  },
  'create-customer': async ({ body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => upsertCustomer(ctx, body)),
  }),
  'get-customer': async ({ path, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => findCustomer(ctx, path.customerId)),
  }),
  'update-customer': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => updateCustomer(ctx, path.customerId, body)),
  }),
  'delete-customer': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => deleteCustomer(ctx, path.customerId));
    return { status: 204 };
  },
};
