import { createOrder, findOrder, listOrders, presentOrder, updateOrder } from '../domain/orders.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

export const orderHandlers: HandlersOf<'list-orders' | 'create-order' | 'get-order' | 'update-order'> = {
  'list-orders': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listOrders(ctx, query));
    return { status: 200, body: { object: 'list', data_ref: 'orders', orders: page.rows.map(presentOrder), total: page.total } };
  },
  'create-order': async ({ body, context, services }) => ({
    status: 200,
    body: presentOrder(await inProject(services, context, (ctx) => createOrder(ctx, body), { optimistic: true })),
  }),
  'get-order': async ({ path, context, services }) => ({ status: 200, body: presentOrder(await inProject(services, context, (ctx) => findOrder(ctx, path.orderId))) }),
  'update-order': async ({ path, body, context, services }) => ({
    status: 200,
    body: presentOrder(await inProject(services, context, (ctx) => updateOrder(ctx, path.orderId, body), { optimistic: true })),
  }),
};
