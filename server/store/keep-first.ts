/**
 * The first few of many in order, without sorting them all: each item is placed by binary search in a sorted
 * array that never grows past `keep`. Used wherever a page near the start is taken from matches met one by one.
 */

/**
 * Adds the item to `best` (sorted by `compare`, at most `keep` long) when it is among the first `keep` met so far.
 * It goes after every kept item it does not come before, so ties keep the order the items were met in.
 */
export function keepFirst<T>(best: T[], item: T, keep: number, compare: (a: T, b: T) => number): void {
  if (keep <= 0 || (best.length >= keep && compare(item, best[keep - 1]!) >= 0)) return;
  let low = 0;
  let high = best.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compare(best[middle]!, item) <= 0) low = middle + 1;
    else high = middle;
  }
  best.splice(low, 0, item);
  if (best.length > keep) best.pop();
}
