/**
 * Reading CSV imports: records keep the line they start on (across quoted line breaks and empty lines), cells are
 * matched to columns by a forgiving name, rows become the single create operation's body, and a body's field is
 * reported by the column it came from.
 */
import { describe, expect, test } from '@jest/globals';
import { columnOf, customerFromCells, skuFromCells, voucherFromCells } from '../../server/domain/imports/rows.js';
import { mergedMetadata } from '../../server/domain/imports/jobs.js';
import { cell } from '../../server/exports/runner.js';
import { CsvFileError, readCsv, surveyCsv } from '../../server/imports/csv.js';

async function records(text: string) {
  const out = [];
  for await (const record of readCsv(Buffer.from(text))) out.push(record);
  return out;
}

describe('CSV imports', () => {
  test('when a file has quoted line breaks and empty lines, then each record keeps the line it starts on', async () => {
    const read = await records('\uFEFFCode,Expiration Date\nA,2026-01-01\n\n"B","two\nlines"\nC\n');
    expect(read).toEqual([
      { line: 2, cells: { code: 'A', expiration_date: '2026-01-01' } },
      { line: 4, cells: { code: 'B', expiration_date: 'two\nlines' } },
      { line: 6, cells: { code: 'C' }, width: { cells: 1, columns: 2 } },
    ]);
    expect(await surveyCsv(Buffer.from('a,b\n1,2\n3,4\n'))).toEqual({ columns: ['a', 'b'], records: 2 });
    await expect(surveyCsv(Buffer.from(''))).rejects.toBeInstanceOf(CsvFileError);
    await expect(surveyCsv(Buffer.from('a\n"open\n'))).rejects.toMatchObject({ line: expect.any(Number) });
  });

  test('when rows are made into bodies, then values are typed and unknown columns become metadata', () => {
    expect(voucherFromCells({ code: 'A', discount_type: 'percent', value: '15', expiration_date: '2026-06-30', active: 'no', 'metadata.batch': 'x', printed: 'yes' })).toEqual({
      code: 'A',
      discount: { type: 'PERCENT', percent_off: 15 },
      expiration_date: '2026-06-30T23:59:59.999Z',
      active: false,
      metadata: { batch: 'x', printed: 'yes' },
    });
    expect(voucherFromCells({ code: 'G', value: '5000' }, 'GIFT_VOUCHER')).toEqual({ code: 'G', gift: { amount: 5000 } });
    expect(voucherFromCells({ code: 'U', discount_type: 'UNIT', value: 'lots', unit_type: 'prod_1' })).toEqual({ code: 'U', discount: { type: 'UNIT', unit_off: 'lots', unit_type: 'prod_1' } });
    expect(customerFromCells({ source_id: 's', address_city: 'Oslo', email: '' })).toEqual({ source_id: 's', address: { city: 'Oslo' } });
    expect(skuFromCells({ product_id: 'p', sku: 'Big', 'attributes.size': 'L', price: '10' })).toEqual({ product: 'p', body: { sku: 'Big', price: 10, attributes: { size: 'L' } } });
    expect(['discount.percent_off', 'gift.amount', 'discount.type', 'redemption.quantity', 'address.city', 'email'].map(columnOf)).toEqual([
      'value', 'value', 'discount_type', 'redemption_limit', 'address_city', 'email',
    ]);
  });

  test('when metadata is merged and cells are written, then null removes a key and objects become JSON', () => {
    expect(mergedMetadata({ a: 1, b: 2 }, { b: null, c: 3 })).toEqual({ a: 1, c: 3 });
    expect([null, 'x', 2, true, [1, 2], { a: 1 }].map(cell)).toEqual(['', 'x', '2', 'true', '1,2', '{"a":1}']);
  });
});
