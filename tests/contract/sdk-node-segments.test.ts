/**
 * The Node.js SDK `voucherify` 5.2.0, unmodified: its segment methods, each called with every field the call
 * can carry, checking whom the segment holds.
 */
import { describe, expect, test } from '@jest/globals';
import { expectAllCalled, inventoryOf, refusal, useNodeSdk, type Body, type Reply } from './sdk-node.js';
import { unique, useTarget } from './target.js';

/** Every field of a request type, however deep, made required (and never null). */
type Complete<T> = T extends (infer Item)[] ? Complete<Item>[] : T extends object ? { [Key in keyof T]-?: Complete<NonNullable<T[Key]>> } : T;

const ctx = useTarget();
const node = useNodeSdk(ctx);

async function customer(metadata: Record<string, unknown>) {
  const made = await ctx.client.POST('/v1/customers', { body: { source_id: unique('node-seg'), metadata } });
  expect(made.response.status).toBe(200);
  return made.data!;
}

describe('the Node.js SDK: segments', () => {
  test('when a segment is created with every field, read and deleted, then it holds whom its filter matches', async () => {
    const { sdk: client } = node;
    const key = `node_${unique('k').slice(2)}`;
    const member = await customer({ [key]: 'yes' });
    // The SDK passes the object through as the body; `customers` belongs to static segments and is ignored here.
    const body = {
      name: unique('Node segment'),
      type: 'passive',
      customers: [member.id!],
      filter: { junction: 'and', [`metadata.${key}`]: { conditions: { $is: ['yes'] } } },
    } satisfies Complete<Body<'create-segment'>>;
    const made: Reply<'create-segment'> = await client.segments.create(body);
    expect(made).toMatchObject({ id: expect.stringMatching(/^seg_/), name: body.name, type: 'passive', object: 'segment' });
    const read: Reply<'get-segment'> = await client.segments.get(made.id!);
    expect(read).toEqual(made);
    const members = await ctx.client.GET('/v1/customers', { params: { query: { segment_id: made.id!, limit: 100 } } });
    expect(members.data!.customers!.map((row) => row.id)).toEqual([member.id]);
    await client.segments.delete(made.id!);
    expect(await refusal(client.segments.get(made.id!))).toMatchObject({ code: 404, key: 'not_found' });
  });

  test('every method of segments that reaches the contract was called', () => {
    expectAllCalled(node.calls, inventoryOf(['segments']));
  });
});
