/**
 * Secrets the server itself keeps, shared by every instance on one store: kept in the organization's
 * partition, made the first time one is asked for. An instance that drew its own at start would sign asset
 * URLs that another instance behind the same load balancer (or the same instance after a restart) refuses.
 */
import { randomBytes } from 'node:crypto';
import { table } from '../../store/schema.js';
import type { DomainContext } from '../context.js';
import { isoNow } from '../clock.js';

export interface ServerSecret {
  /** What the secret is for (`asset-signing`). */
  id: string;
  value: string;
  created_at: string;
}

export const SERVER_SECRETS_TABLE = table<ServerSecret>({ unique: [], indexed: [] });

/** The secret of that name; the first instance to ask makes it (units of work on the organization run one at a time). */
export async function sharedSecret(ctx: DomainContext, name: string): Promise<string> {
  const found = await ctx.uow.server_secrets.get(name);
  if (found) return found.value;
  const made = await ctx.uow.server_secrets.insert({ id: name, value: randomBytes(32).toString('base64url'), created_at: isoNow(ctx.clock) });
  return made.value;
}
