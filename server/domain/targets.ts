/**
 * Which lines and units of an order a product discount reaches: a validation rule's `applicable_to`, as the
 * public API's discount guides describe it. Pure: the lines, the collections each line belongs to (worked out
 * by whoever gathered the facts) and the targeting go in; for each targeting entry, the units of each line it
 * reaches come out.
 *
 * - A `product` entry reaches the product's lines and the lines of its SKUs; a `sku` entry the SKU's lines
 *   only; a `products_collection` entry the lines the collection holds (a static collection holds its products'
 *   SKUs too; an auto-update one holds each product or SKU that meets its filter). An entry names its item by
 *   ID or by `source_id`.
 * - `excluded` wins over everything: an excluded line is reached by no entry. `included_all` reaches every line
 *   no included entry took, less the excluded ones; so does a targeting that excludes and includes nothing.
 * - A line is reached by the first included entry that matches it, so no line is discounted twice by one
 *   redeemable.
 * - Each entry orders what it reached by its `effect` (request order for `APPLY_TO_EVERY`, by unit price for
 *   the others; equal prices keep request order) and counts it as whole lines or as units (`target`). The
 *   cheapest or the most expensive one alone is taken for `APPLY_TO_CHEAPEST` and `APPLY_TO_MOST_EXPENSIVE`;
 *   otherwise `skip_initially` passes over the first ones and `repeat` takes every n-th after them (the
 *   first, then every n-th: skip 1 and repeat 3 over ten take the 2nd, 5th and 8th).
 * - `quantity_limit` caps the units taken from each line, `aggregated_quantity_limit` the units taken over all
 *   the entry's lines, in the order the entry takes them.
 */
import type { components } from '../../generated/openapi.js';

export type TargetEntry = components['schemas']['ValidationRuleApplicableToItem'];

export interface Targeting {
  included: readonly TargetEntry[];
  excluded: readonly TargetEntry[];
  included_all: boolean;
}

/** What matching reads of an order line. */
export interface TargetLine {
  product_id: string | null;
  sku_id: string | null;
  /** The product's and SKU's `source_id`, when known (from the catalog or the request). */
  product_source_id?: string | null;
  sku_source_id?: string | null;
  quantity: number;
  price: number | null;
  amount: number;
}

/** For each collection an entry names, the positions of the lines it holds. */
export type Memberships = ReadonlyMap<string, ReadonlySet<number>>;

/** What one entry reached: the units of each line (by position in the order; 0 for lines it did not reach). */
export interface Allotment {
  /** The entry; undefined for the lines `included_all` (or a targeting of exclusions alone) reached. */
  entry: TargetEntry | undefined;
  units: number[];
  /** The positions of the lines reached, in the order the entry took them. */
  order: number[];
}

/** Whether a targeting narrows a discount at all: otherwise an item discount reaches every line, every unit. */
export function narrows(targeting: Targeting | undefined): targeting is Targeting {
  return targeting !== undefined && (targeting.included.length > 0 || targeting.excluded.length > 0 || targeting.included_all);
}

/** One targeting made of several (each rule assigned to a redeemable may bring its own). */
export function mergeTargetings(targetings: readonly (Targeting | null | undefined)[]): Targeting | undefined {
  const present = targetings.filter((targeting): targeting is Targeting => narrows(targeting ?? undefined));
  if (present.length === 0) return undefined;
  if (present.length === 1) return present[0];
  return {
    included: present.flatMap((targeting) => targeting.included),
    excluded: present.flatMap((targeting) => targeting.excluded),
    included_all: present.some((targeting) => targeting.included_all),
  };
}

const same = (a: string | null | undefined, b: string | null | undefined) => a !== undefined && a !== null && a === b;

/** Whether an entry names the item of a line. */
export function entryMatches(entry: TargetEntry, line: TargetLine, index: number, memberships: Memberships): boolean {
  switch (entry.object) {
    case 'product':
      return same(line.product_id, entry.id) || same(line.product_source_id, entry.id) || same(line.product_source_id, entry.source_id);
    case 'sku':
      return same(line.sku_id, entry.id) || same(line.sku_source_id, entry.id) || same(line.sku_source_id, entry.source_id);
    case 'products_collection':
      return memberships.get(entry.id)?.has(index) ?? false;
    default:
      return false;
  }
}

/** A line's price of one unit: its own, else its amount over its quantity. */
export function unitPrice(line: TargetLine): number {
  if (line.price !== null) return line.price;
  return line.quantity > 0 ? line.amount / line.quantity : 0;
}

/** Whether the n-th resource (from 1) is taken, after `skip` passed over, every `repeat`-th. */
function taken(n: number, skip: number, repeat: number): boolean {
  return n > skip && (n - skip - 1) % repeat === 0;
}

const whole = (value: number | undefined, fallback: number) => (value !== undefined && Number.isFinite(value) && value >= 0 ? Math.floor(value) : fallback);

/** The units of each of `reached` an entry takes, by its effect, target, skip, repeat and quantity caps. */
function allot(entry: TargetEntry | undefined, reached: number[], lines: readonly TargetLine[]): Allotment {
  const effect = entry?.effect ?? 'APPLY_TO_EVERY';
  const ordered = [...reached];
  if (effect === 'APPLY_TO_CHEAPEST' || effect === 'APPLY_FROM_CHEAPEST') ordered.sort((a, b) => unitPrice(lines[a]!) - unitPrice(lines[b]!) || a - b);
  if (effect === 'APPLY_TO_MOST_EXPENSIVE' || effect === 'APPLY_FROM_MOST_EXPENSIVE') ordered.sort((a, b) => unitPrice(lines[b]!) - unitPrice(lines[a]!) || a - b);
  const single = effect === 'APPLY_TO_CHEAPEST' || effect === 'APPLY_TO_MOST_EXPENSIVE';
  const skip = single ? 0 : whole(entry?.skip_initially, 0);
  const repeat = single ? 1 : Math.max(1, whole(entry?.repeat, 1));
  const byUnit = entry?.target === 'UNIT';
  const units = lines.map(() => 0);
  let n = 0;
  for (const index of ordered) {
    const quantity = Math.max(0, Math.floor(lines[index]!.quantity));
    if (byUnit) {
      for (let unit = 0; unit < quantity; unit++) if (taken(++n, skip, repeat) && !(single && n > 1)) units[index]! += 1;
    } else if (taken(++n, skip, repeat) && !(single && n > 1)) {
      units[index] = quantity;
    }
    if (single && n >= 1) break;
  }
  const perLine = entry?.quantity_limit;
  let left = entry?.aggregated_quantity_limit === undefined ? Infinity : whole(entry.aggregated_quantity_limit, 0);
  const order: number[] = [];
  for (const index of ordered) {
    if (units[index]! === 0) continue;
    let count = perLine === undefined ? units[index]! : Math.min(units[index]!, whole(perLine, 0));
    count = Math.min(count, left);
    left -= count;
    units[index] = count;
    if (count > 0) order.push(index);
  }
  return { entry, units, order };
}

/**
 * What each entry of the targeting reaches of the order's lines; an entry that reaches nothing is left out.
 * With no targeting, one allotment of every unit of every line, in request order.
 */
export function allotments(targeting: Targeting | undefined, lines: readonly TargetLine[], memberships: Memberships): Allotment[] {
  if (!narrows(targeting)) {
    const all = lines.map((_, index) => index);
    return [{ entry: undefined, units: lines.map((line) => Math.max(0, Math.floor(line.quantity))), order: all.filter((index) => lines[index]!.quantity > 0) }];
  }
  const excluded = new Set<number>();
  for (const [index, line] of lines.entries()) if (targeting.excluded.some((entry) => entryMatches(entry, line, index, memberships))) excluded.add(index);
  const claimed = new Set<number>(excluded);
  const found: Allotment[] = [];
  for (const entry of targeting.included) {
    const reached = lines.flatMap((line, index) => (!claimed.has(index) && entryMatches(entry, line, index, memberships) ? [index] : []));
    for (const index of reached) claimed.add(index);
    const allotment = allot(entry, reached, lines);
    if (allotment.order.length > 0) found.push(allotment);
  }
  if (targeting.included_all || targeting.included.length === 0) {
    const rest = lines.flatMap((_, index) => (claimed.has(index) ? [] : [index]));
    const allotment = allot(undefined, rest, lines);
    if (allotment.order.length > 0) found.push(allotment);
  }
  return found;
}

/** The positions of the lines each excluded entry kept the discount from. */
export function exclusions(targeting: Targeting | undefined, lines: readonly TargetLine[], memberships: Memberships): { entry: TargetEntry; indices: number[] }[] {
  if (!narrows(targeting)) return [];
  return targeting.excluded.map((entry) => ({ entry, indices: lines.flatMap((line, index) => (entryMatches(entry, line, index, memberships) ? [index] : [])) }));
}
