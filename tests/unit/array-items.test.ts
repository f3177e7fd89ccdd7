/**
 * Every array schema of the published bundle states `items`, beside any `prefixItems`: Spectral's oas ruleset
 * (`array-items`, run by `make lint`) fails a contract where one does not, and so would any CI that runs it.
 * This holds the rule in seconds; `make lint` runs Spectral itself.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT } from '../../server/paths.js';

/** JSON pointers of the array schemas under `node` that lack `items`. */
function arraysWithoutItems(node: unknown, pointer: string, found: string[]): string[] {
  if (Array.isArray(node)) node.forEach((member, index) => arraysWithoutItems(member, `${pointer}/${index}`, found));
  else if (typeof node === 'object' && node !== null) {
    const schema = node as Record<string, unknown>;
    const isArray = schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array'));
    // `example(s)` hold values, not schemas.
    if (isArray && !('items' in schema) && !/\/examples?(\/|$)/.test(pointer)) found.push(pointer);
    for (const [key, value] of Object.entries(schema)) arraysWithoutItems(value, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, found);
  }
  return found;
}

describe('array schemas', () => {
  test('when the bundle is read, then every array schema states items (LocationPosition beside its prefixItems too)', () => {
    const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as { components: { schemas: Record<string, Record<string, unknown>> } };
    expect(arraysWithoutItems(contract, '#', [])).toEqual([]);
    const position = contract.components.schemas.LocationPosition!;
    expect(position).toMatchObject({ prefixItems: [{ type: 'number' }, { type: 'number' }], items: { type: 'number' }, minItems: 2, maxItems: 2 });
  });
});
