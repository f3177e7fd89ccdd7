/** The bench's kept answers: each operation's first answer given again, only while switched on. */
import { describe, expect, test } from '@jest/globals';
import { keepAnswersOf, type AnyHandler } from '../../bench/kept-answers.js';

function counting() {
  const calls: unknown[] = [];
  const table: Record<string, AnyHandler> = {
    'get-thing': async (input) => {
      calls.push(input);
      return { status: 200, body: { n: calls.length } };
    },
  };
  return { table, calls, keep: keepAnswersOf(table) };
}

describe('kept answers (make bench)', () => {
  test('while off, every request runs the handler', async () => {
    const { table, calls } = counting();
    expect(await table['get-thing']!('a')).toEqual({ status: 200, body: { n: 1 } });
    expect(await table['get-thing']!('b')).toEqual({ status: 200, body: { n: 2 } });
    expect(calls).toEqual(['a', 'b']);
  });

  test('while on, the first answer is given again without running the handler, and switching forgets it', async () => {
    const { table, calls, keep } = counting();
    keep(true);
    const first = await table['get-thing']!('a');
    expect(await table['get-thing']!('b')).toBe(first);
    expect(calls).toEqual(['a']);
    keep(false);
    expect(await table['get-thing']!('c')).toEqual({ status: 200, body: { n: 2 } });
    keep(true);
    expect(await table['get-thing']!('d')).toEqual({ status: 200, body: { n: 3 } });
    expect(calls).toEqual(['a', 'c', 'd']);
  });

  test('a first answer that fails is not kept', async () => {
    let failing = true;
    const table: Record<string, AnyHandler> = {
      op: async () => {
        if (failing) throw new Error('no');
        return 'fine';
      },
    };
    const keep = keepAnswersOf(table);
    keep(true);
    await expect(table.op!(undefined)).rejects.toThrow('no');
    failing = false;
    expect(await table.op!(undefined)).toBe('fine');
    failing = true;
    expect(await table.op!(undefined)).toBe('fine');
  });
});
