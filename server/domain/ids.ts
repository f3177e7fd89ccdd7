import { randomBytes } from 'node:crypto';

/** A new opaque ID with the type's prefix, e.g. `prod_0a9f9aeddb019a42db`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(9).toString('hex')}`;
}
