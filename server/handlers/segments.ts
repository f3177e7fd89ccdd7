/** Customer segments, and the segments of one customer. */
import { findCustomer } from '../domain/customers.js';
import { createSegment, deleteSegment, findSegment, listSegments, presentSegment, segmentsOf } from '../domain/segments.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

type SegmentOperations = 'create-segment' | 'list-segment' | 'get-segment' | 'delete-segment' | 'list-customer-segments';

export const segmentHandlers: HandlersOf<SegmentOperations> = {
  'create-segment': async ({ body, context, services }) => ({
    status: 200,
    body: presentSegment(await inProject(services, context, (ctx) => createSegment(ctx, body))),
  }),
  'list-segment': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listSegments(ctx, query));
    return { status: 200, body: { object: 'list', data_ref: 'data', data: page.rows, total: page.total } };
  },
  'get-segment': async ({ path, context, services }) => ({
    status: 200,
    body: presentSegment(await inProject(services, context, (ctx) => findSegment(ctx, path.segmentId))),
  }),
  'delete-segment': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => deleteSegment(ctx, path.segmentId));
    return { status: 204 };
  },
  'list-customer-segments': async ({ path, context, services }) => {
    const segments = await inProject(services, context, async (ctx) => segmentsOf(ctx, await findCustomer(ctx, path.customerId)));
    const data = segments.map((segment) => ({ id: segment.id, name: segment.name, object: 'segment' as const }));
    return { status: 200, body: { object: 'list', data_ref: 'data', data, total: data.length } };
  },
};
