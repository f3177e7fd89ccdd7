/** Names the SQL store gives what it makes in the database (indexes, partitions). */
import { createHash } from 'node:crypto';

/** PostgreSQL's limit on an identifier's length. */
const NAME_MAX = 63;

/**
 * The name as given when PostgreSQL can hold it; past its limit, cut and ended with a hash of the whole, so
 * two long names that share their start stay apart. Never change this: released migrations made indexes (and
 * partitions) under these names.
 */
export function fittedName(name: string): string {
  if (Buffer.byteLength(name) <= NAME_MAX) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 10);
  return `${Buffer.from(name).subarray(0, NAME_MAX - 11).toString('utf8').replace(/\uFFFD+$/, '')}_${hash}`;
}
