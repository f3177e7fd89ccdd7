import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { SchemaPruner } from '../../server/contract/schema-pruner.js';
import { BUNDLED_CONTRACT } from '../../server/paths.js';

const pruner = new SchemaPruner(JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as Record<string, unknown>);
const body = (path: string, method: string) => {
  const pointer = pruner.bodyPointer(path, method);
  if (!pointer) throw new Error(`no body for ${method} ${path}`);
  return (value: unknown) => pruner.prune(value, pointer);
};

describe('the request pruner', () => {
  test('when a body carries fields its schema does not name, then they are taken out at every depth, and maps stay whole', () => {
    const product = body('/v1/products', 'post');
    expect(product({ name: 'Beans', object: 'product', created_at: '2020-01-01T00:00:00Z', metadata: { any: { nested: [1] } }, skus: { total: 9 } })).toEqual({
      name: 'Beans',
      metadata: { any: { nested: [1] } },
    });
  });

  test('when a union is involved, then the branch the value matches says what is known', () => {
    const voucher = body('/v1/vouchers/{code}', 'post');
    const pruned = voucher({
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'PERCENT', percent_off: 10, amount_off: 5, colour: 'red' },
      redemption: { quantity: 3, redeemed_quantity: 2 },
    }) as Record<string, Record<string, unknown>>;
    expect(pruned.discount).toEqual({ type: 'PERCENT', percent_off: 10 });
    expect(pruned.redemption).toEqual({ quantity: 3 });
  });

  test('when one schema prunes many values, then each value is pruned by its own union branch, whatever came before', () => {
    const voucher = body('/v1/vouchers/{code}', 'post');
    const discount = (value: Record<string, unknown>) => (voucher({ type: 'DISCOUNT_VOUCHER', discount: value }) as Record<string, unknown>).discount;
    // What is kept of a schema is kept per schema, never per value: the second and third values see their own branch.
    expect(discount({ type: 'PERCENT', percent_off: 10, amount_off: 5 })).toEqual({ type: 'PERCENT', percent_off: 10 });
    expect(discount({ type: 'AMOUNT', amount_off: 5, percent_off: 10 })).toEqual({ type: 'AMOUNT', amount_off: 5 });
    expect(discount({ type: 'PERCENT', percent_off: 20, amount_off: 7 })).toEqual({ type: 'PERCENT', percent_off: 20 });
    // A schema without unions prunes alike every time.
    const product = body('/v1/products', 'post');
    for (let i = 0; i < 3; i++) expect(product({ name: `p${i}`, colour: 'red' })).toEqual({ name: `p${i}` });
  });

  test('when keys are named by patterns, then matching keys stay and the rest go', () => {
    const rule = body('/v1/validation-rules', 'post');
    const pruned = rule({ name: 'r', rules: { '1': { name: 'order.amount', conditions: { $is: [1] }, extra: 1 }, logic: '1' }, id: 'val_x' });
    expect(pruned).toEqual({ name: 'r', rules: { '1': { name: 'order.amount', conditions: { $is: [1] } }, logic: '1' } });
  });

  test('when a value is not an object, then it is left as it is', () => {
    const product = body('/v1/products', 'post');
    expect(product('text')).toBe('text');
    expect(product(null)).toBeNull();
  });

  test('when a union has branches of other types (an object or null), then a value takes the branch of its type', () => {
    const customer = body('/v1/customers/{customerId}', 'put');
    expect(customer({ name: 'Ann', metadata: null, id: 'cust_x' })).toEqual({ name: 'Ann', metadata: null });
    expect(customer({ name: 'Ann', metadata: { visits: 2, nested: { a: [1] } }, object: 'customer' })).toEqual({ name: 'Ann', metadata: { visits: 2, nested: { a: [1] } } });
  });

  test('when union branches take different types, then a value is pruned by the branch of its type only', () => {
    const choice = new SchemaPruner({
      components: {
        schemas: {
          Choice: { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: ['object', 'null'], properties: { a: { type: 'number' } } }] },
        },
      },
    });
    const prune = (value: unknown) => choice.prune(value, '#/components/schemas/Choice');
    expect([prune('text'), prune(5), prune(null), prune({ a: 1.5, b: 2 })]).toEqual(['text', 5, null, { a: 1.5 }]);
  });

  test('when a schema is its own allOf member, then pruning ends and keeps what it names', () => {
    const own = new SchemaPruner({
      components: {
        schemas: {
          Node: { type: 'object', allOf: [{ $ref: '#/components/schemas/Node' }], properties: { name: { type: 'string' }, child: { $ref: '#/components/schemas/Node' } } },
        },
      },
    });
    expect(own.prune({ name: 'a', extra: 1, child: { name: 'b', extra: 2 } }, '#/components/schemas/Node')).toEqual({ name: 'a', child: { name: 'b' } });
  });
});
