/**
 * Secrets the server instances on one database share, kept in the organization's partition: what signs export
 * download addresses and asset URLs must be the same on every instance, or an address one instance gave out
 * fails on the next. The first instance to need a secret makes it; the others read it.
 */
import { randomBytes } from 'node:crypto';
import { table } from '../../store/schema.js';
import type { DomainContext } from '../context.js';

export interface SecretRecord {
  /** What the secret signs. */
  id: string;
  /** 32 random bytes, base64. */
  value: string;
}

export const SECRETS_TABLE = table<SecretRecord>({ unique: [], indexed: [] });

/** The secret named `id`, made now if no instance made it before. Runs in the organization's partition. */
export async function sharedSecret({ uow }: DomainContext, id: string): Promise<Buffer> {
  const found = await uow.server_secrets.get(id);
  if (found) return Buffer.from(found.value, 'base64');
  const value = randomBytes(32).toString('base64');
  // The partition's lock makes the read and the insert one step: two instances never make two secrets.
  await uow.server_secrets.insert({ id, value });
  return Buffer.from(value, 'base64');
}
