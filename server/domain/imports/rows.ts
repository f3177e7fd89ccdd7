/**
 * The rows of CSV imports as the bodies of the single create operations: a row's cells (by column name, see
 * server/imports/csv.ts) become the request a client would send for that one object, which then goes through the
 * same checks and the same domain function. Empty cells are left out. Text that reads as a number or a boolean
 * where one is due becomes one; anything else stays text, for the schema check to report with its column.
 */
import type { components } from '../../../generated/openapi.js';

type Schemas = components['schemas'];
export type Cells = Record<string, string>;

/** A column the import does not know becomes a metadata key, as a `metadata.<key>` column does. */
function metadataOf(cells: Cells, known: ReadonlySet<string>): Record<string, string> | undefined {
  const metadata: Record<string, string> = {};
  for (const [column, value] of Object.entries(cells)) {
    if (value === '' || known.has(column)) continue;
    metadata[column.startsWith('metadata.') ? column.slice('metadata.'.length) : column] = value;
  }
  return Object.keys(metadata).length > 0 ? metadata : undefined;
}

function number(text: string): number | string {
  const trimmed = text.trim();
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : text;
}

function boolean(text: string): boolean | string {
  const word = text.trim().toLowerCase();
  if (['true', 'yes', '1'].includes(word)) return true;
  if (['false', 'no', '0'].includes(word)) return false;
  return text;
}

/** A day alone is taken as its first moment (a start) or its last (an end), in UTC. */
function moment(text: string, end: boolean): string {
  const trimmed = text.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(trimmed)) return `${trimmed}T${end ? '23:59:59.999' : '00:00:00.000'}Z`;
  return trimmed;
}

/** The cells that are not empty, with their columns. */
function given(cells: Cells, column: string): string | undefined {
  const value = cells[column];
  return value === undefined || value.trim() === '' ? undefined : value;
}

const VOUCHER_COLUMNS: ReadonlySet<string> = new Set([
  'code', 'type', 'voucher_type', 'discount_type', 'value', 'unit_type', 'category', 'start_date', 'expiration_date', 'redemption_limit',
  'redemption_quantity', 'active', 'additional_info',
]);

/**
 * A voucher row as the body of `create-voucher` with its code (`VoucherImport`). `type` is the campaign's in a
 * campaign import, and the value then goes to that type's part; without a value the campaign's template holds.
 */
export function voucherFromCells(cells: Cells, campaignType?: Schemas['VoucherType']): Record<string, unknown> {
  const stated = given(cells, 'type') ?? given(cells, 'voucher_type');
  const type = campaignType ?? stated?.trim().toUpperCase() ?? 'DISCOUNT_VOUCHER';
  const value = given(cells, 'value');
  const discountType = given(cells, 'discount_type')?.trim().toUpperCase();
  const row: Record<string, unknown> = { code: cells.code ?? '' };
  if (stated !== undefined) row.type = stated.trim().toUpperCase();
  if (type === 'DISCOUNT_VOUCHER' && (value !== undefined || discountType !== undefined)) {
    const kind = discountType ?? 'AMOUNT';
    const amount = value === undefined ? undefined : number(value);
    const part = { AMOUNT: 'amount_off', PERCENT: 'percent_off', FIXED: 'fixed_amount', UNIT: 'unit_off' }[kind];
    row.discount = {
      type: kind,
      ...(part && amount !== undefined && { [part]: amount }),
      ...(kind === 'UNIT' && given(cells, 'unit_type') !== undefined && { unit_type: given(cells, 'unit_type') }),
    };
  }
  if (type === 'GIFT_VOUCHER' && value !== undefined) row.gift = { amount: number(value) };
  if (type === 'LOYALTY_CARD' && value !== undefined) row.loyalty_card = { points: number(value) };
  const category = given(cells, 'category');
  if (category !== undefined) row.category = category;
  const start = given(cells, 'start_date');
  if (start !== undefined) row.start_date = moment(start, false);
  const end = given(cells, 'expiration_date');
  if (end !== undefined) row.expiration_date = moment(end, true);
  const limit = given(cells, 'redemption_limit') ?? given(cells, 'redemption_quantity');
  if (limit !== undefined) row.redemption = { quantity: number(limit) };
  const active = given(cells, 'active');
  if (active !== undefined) row.active = boolean(active);
  const info = given(cells, 'additional_info');
  if (info !== undefined) row.additional_info = info;
  const metadata = metadataOf(cells, VOUCHER_COLUMNS);
  if (metadata) row.metadata = metadata;
  return row;
}

const ADDRESS_PARTS = ['line_1', 'line_2', 'city', 'state', 'country', 'postal_code'] as const;
const CUSTOMER_COLUMNS: ReadonlySet<string> = new Set([
  'source_id', 'name', 'description', 'email', 'phone', 'birthdate', 'birthday', ...ADDRESS_PARTS.map((part) => `address_${part}`),
]);

/** A customer row as the body of `create-customer`. */
export function customerFromCells(cells: Cells): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const field of ['source_id', 'name', 'description', 'email', 'phone', 'birthdate', 'birthday']) {
    const value = given(cells, field);
    if (value !== undefined) row[field] = value.trim();
  }
  const address: Record<string, string> = {};
  for (const part of ADDRESS_PARTS) {
    const value = given(cells, `address_${part}`);
    if (value !== undefined) address[part] = value;
  }
  if (Object.keys(address).length > 0) row.address = address;
  const metadata = metadataOf(cells, CUSTOMER_COLUMNS);
  if (metadata) row.metadata = metadata;
  return row;
}

const PRODUCT_COLUMNS: ReadonlySet<string> = new Set(['name', 'source_id', 'price', 'attributes', 'image_url']);

/** A product row as the body of `create-product`; `attributes` lists the names separated by commas. */
export function productFromCells(cells: Cells): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const field of ['name', 'source_id', 'image_url']) {
    const value = given(cells, field);
    if (value !== undefined) row[field] = value.trim();
  }
  const price = given(cells, 'price');
  if (price !== undefined) row.price = number(price);
  const attributes = given(cells, 'attributes');
  if (attributes !== undefined) row.attributes = attributes.split(',').map((name) => name.trim()).filter(Boolean);
  const metadata = metadataOf(cells, PRODUCT_COLUMNS);
  if (metadata) row.metadata = metadata;
  return row;
}

const SKU_COLUMNS: ReadonlySet<string> = new Set(['product_id', 'sku', 'source_id', 'price', 'currency', 'image_url']);

/** A SKU row: the product it belongs to (ID or `source_id`), and the body of `create-sku`. */
export function skuFromCells(cells: Cells): { product: string; body: Record<string, unknown> } {
  const body: Record<string, unknown> = {};
  for (const field of ['sku', 'source_id', 'currency', 'image_url']) {
    const value = given(cells, field);
    if (value !== undefined) body[field] = value.trim();
  }
  const price = given(cells, 'price');
  if (price !== undefined) body.price = number(price);
  const attributes: Record<string, string> = {};
  const rest: Cells = {};
  for (const [column, value] of Object.entries(cells)) {
    if (column.startsWith('attributes.')) {
      if (value !== '') attributes[column.slice('attributes.'.length)] = value;
    } else rest[column] = value;
  }
  if (Object.keys(attributes).length > 0) body.attributes = attributes;
  const metadata = metadataOf(rest, SKU_COLUMNS);
  if (metadata) body.metadata = metadata;
  return { product: (cells.product_id ?? '').trim(), body };
}

/**
 * The column a field of a row's body came from, so a problem found in the body is reported by column. Fields of a
 * voucher's value part came from `value` (or the discount's type and unit columns); address parts from
 * `address_<part>`; metadata and SKU attributes keep their column names.
 */
export function columnOf(field: string): string {
  const voucher: Record<string, string> = {
    'discount.type': 'discount_type',
    'discount.unit_type': 'unit_type',
    'redemption.quantity': 'redemption_limit',
    'redemption': 'redemption_limit',
  };
  if (voucher[field]) return voucher[field];
  if (/^(discount|gift|loyalty_card)(\.|$)/.test(field)) return 'value';
  if (field.startsWith('address.')) return `address_${field.slice('address.'.length)}`;
  return field;
}

/** The columns a file must have, by import. */
export const REQUIRED_COLUMNS = {
  vouchers: ['code'],
  customers: ['source_id'],
  products: [],
  skus: ['product_id'],
} as const;
