/**
 * Update requests applied to a row: what `{ ...row, ...given, updated_at }` with the undefined fields left out
 * gives (the values, the order of the fields, a `__proto__` field kept as a field), and whether a request
 * would change nothing, for any row and request.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { applyChanges, changesNothing } from '../../server/domain/changes.js';

type Row = Record<string, unknown> & { updated_at?: string | null };

/** The definition the functions must keep to, written the plain way. */
function expectedApply(row: Row, changes: Row, updatedAt: string): Row {
  const given = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  return { ...row, ...given, updated_at: updatedAt };
}
const expectedNothing = (row: Row, changes: Row) => Object.entries(changes).every(([field, value]) => value === undefined || isDeepStrictEqual(row[field], value));

const field = fc.constantFrom('name', 'email', 'metadata', 'address', 'updated_at', 'created_at', 'extra', '__proto__', 'toString');
const value = fc.oneof(fc.constant(undefined), fc.constant(null), fc.string({ maxLength: 3 }), fc.integer({ min: 0, max: 3 }), fc.dictionary(fc.constantFrom('a', 'b'), fc.integer({ min: 0, max: 2 }), { maxKeys: 2 }));
/** Rows and requests as JSON.parse makes them: a `__proto__` key is an own field. */
const record = fc.array(fc.tuple(field, value), { maxLength: 8 }).map((entries) => JSON.parse(JSON.stringify(Object.fromEntries(entries.filter(([, v]) => v !== undefined)))) as Row);
const request = fc.tuple(record, fc.array(field, { maxLength: 3 })).map(([given, unset]) => {
  for (const name of unset) Object.defineProperty(given, name, { value: undefined, writable: true, enumerable: true, configurable: true });
  return given;
});

describe('applying an update request', () => {
  test('when any request meets any row, then the fields, their values and their order are those of the plain spread', () => {
    fc.assert(
      fc.property(record, request, (row, changes) => {
        const updated = applyChanges(row, changes, '2026-11-29T10:00:00.000Z');
        const expected = expectedApply(row, changes, '2026-11-29T10:00:00.000Z');
        expect(Object.keys(updated)).toEqual(Object.keys(expected));
        expect(Object.entries(updated)).toEqual(Object.entries(expected));
        expect(Object.getPrototypeOf(updated)).toBe(Object.prototype);
        expect(Object.isFrozen(updated)).toBe(false);
      }),
    );
  });

  test('when a field is left out or undefined, then it keeps its value; a null clears it; the row itself is not changed', () => {
    const row = Object.freeze({ id: 'c1', name: 'Ann', email: 'ann@example.com', updated_at: null });
    expect(applyChanges(row, { name: undefined, email: null, metadata: { tier: 'gold' } } as never, 'now')).toEqual({ id: 'c1', name: 'Ann', email: null, updated_at: 'now', metadata: { tier: 'gold' } });
    expect(row).toEqual({ id: 'c1', name: 'Ann', email: 'ann@example.com', updated_at: null });
  });
});

describe('whether an update request changes nothing', () => {
  test('when any request meets any row, then the answer is the plain definition', () => {
    fc.assert(fc.property(record, request, (row, changes) => expect(changesNothing(row, changes)).toBe(expectedNothing(row, changes))));
  });

  test('when the same nested values come anew or a field is undefined, then nothing changes; a different one changes', () => {
    const row = { name: 'Ann', metadata: { visits: 2, tags: ['a'] } };
    expect(changesNothing(row, { name: 'Ann', metadata: { visits: 2, tags: ['a'] }, email: undefined } as never)).toBe(true);
    expect(changesNothing(row, { metadata: { visits: 3, tags: ['a'] } })).toBe(false);
    expect(changesNothing(row, { name: null } as never)).toBe(false);
  });
});
