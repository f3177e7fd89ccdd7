/**
 * OAuth tokens as the organization keeps them, in its partition (ORGANIZATION), so that whichever server
 * instance a request reaches verifies, introspects and revokes the tokens any other one issued. The row's ID
 * is a SHA-256 of the token, never the token: a copy of the database gives no one a usable token.
 */
import { createHash } from 'node:crypto';
import { compare } from '../../store/conditions.js';
import { table } from '../../store/schema.js';
import type { DomainContext } from '../context.js';
import { FRESH } from '../../store/fresh.js';

export interface OAuthTokenRecord {
  /** SHA-256 of the token, base64url. */
  id: string;
  project_id: string;
  api_key: { name: string; app_id: string };
  /** The key's application ID again, at the top, so that every token of a key is found by index. */
  app_id: string;
  scopes: string[];
  /** Milliseconds since the epoch, as every time of a token here. */
  issued_at: number;
  expires_at: number;
  revoked_at: number | null;
  /** When it stops being usable: its expiry, or its revocation if that came first (what the purge reads). */
  ends_at: number;
}

export const OAUTH_TOKENS_TABLE = table<OAuthTokenRecord>({ unique: [], indexed: ['app_id'], kinds: { ends_at: 'number' } });

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

export async function findToken({ uow }: DomainContext, token: string): Promise<OAuthTokenRecord | undefined> {
  return uow.oauth_tokens.get(tokenHash(token));
}

export async function revokeToken({ uow }: DomainContext, record: OAuthTokenRecord, at: number): Promise<void> {
  if (record.revoked_at !== null) return;
  await uow.oauth_tokens.update({ ...FRESH, ...record, revoked_at: at, ends_at: Math.min(record.ends_at, at) });
}

/** Ends every token an API key obtained that has not ended yet. */
export async function revokeTokensOf(ctx: DomainContext, appId: string, at: number): Promise<void> {
  for (const record of await ctx.uow.oauth_tokens.findBy('app_id', appId)) await revokeToken(ctx, record, at);
}

/** Forgets the tokens that ended before `endedBefore`; how many. */
export async function purgeTokens({ uow }: DomainContext, endedBefore: number): Promise<number> {
  const { rows } = await uow.oauth_tokens.query({ where: compare('lte', 'ends_at', endedBefore) });
  for (const row of rows) await uow.oauth_tokens.delete(row.id);
  return rows.length;
}

/** How many tokens are kept, ended ones included until they are purged. */
export async function countTokens({ uow }: DomainContext): Promise<number> {
  return (await uow.oauth_tokens.query({ limit: 0 })).total;
}
