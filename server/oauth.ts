/**
 * OAuth 2.0 bearer tokens: issued to an API key with scopes, usable in place of the key within those
 * scopes until they expire or are revoked. Tokens live in the store, beside the API keys they act for.
 *
 * Only the API key itself obtains tokens (a token cannot mint another; see server/http/auth.ts), so every
 * token derives from its key alone: it ends when it expires, when it is revoked, or when its key is gone.
 * A token that ended is still known for a while (introspection answers it `active: false`), then forgotten.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from './domain/clock.js';
import type { DomainContext } from './domain/context.js';
import { invalid } from './domain/errors.js';
import { ORGANIZATION } from './domain/management/projects.js';
import { countTokens, findToken, purgeTokens, revokeToken, revokeTokensOf, tokenHash, type OAuthTokenRecord } from './domain/management/oauth-tokens.js';
import type { DomainStore } from './domain/schema.js';

export const SCOPES = [
  'api', 'client_api', 'assets', 'async-actions', 'campaigns', 'categories', 'client_consents', 'client_customers',
  'client_events', 'client_promotions', 'client_publish', 'client_qualifications', 'client_redeem', 'client_redemptions',
  'client_validate', 'client_validations', 'client_vouchers', 'consents', 'customers', 'events', 'exports', 'locations',
  'loyalties', 'metadata-schemas', 'orders', 'product-collections', 'products', 'promotions', 'publications',
  'qualifications', 'redemptions', 'referrals', 'rewards', 'segments', 'SKUs', 'task-results', 'templates', 'trash-bin',
  'validation-rules-assignments', 'validation-rules', 'validations', 'vouchers',
] as const;

const DEFAULT_LIFETIME_SECONDS = 900;
export const MAX_LIFETIME_SECONDS = 86_400;
const MIN_LIFETIME_SECONDS = 60;
/** How long a token that expired or was revoked is still known to introspection before it is forgotten. */
export const ENDED_TOKENS_KEPT_MS = 3_600_000;
/** Ended tokens are swept at most this often, when a token is issued or looked up. */
const SWEEP_EVERY_MS = 60_000;

/** The scope a path under /v1 needs besides `api`: its first segment, with the interface's spellings. */
const SCOPE_OF_SEGMENT: Record<string, string> = { skus: 'SKUs', 'metadata-schemas': 'metadata-schemas' };

export function scopeForPath(path: string): string | undefined {
  const segment = /^\/v1\/([^/?]+)/.exec(path)?.[1];
  if (!segment) return undefined;
  return SCOPE_OF_SEGMENT[segment] ?? segment;
}

/** The scopes, besides `client_api`, that reach each resource of the client-side API under /client/v1. */
const CLIENT_SCOPES_OF_SEGMENT: Record<string, readonly string[]> = {
  events: ['client_events'],
  validations: ['client_validations', 'client_validate'],
  redemptions: ['client_redemptions', 'client_redeem'],
  qualifications: ['client_qualifications'],
  promotions: ['client_promotions'],
};

export function clientScopesForPath(path: string): readonly string[] {
  const segment = /^\/client\/v1\/([^/?]+)/.exec(path)?.[1];
  return segment ? (CLIENT_SCOPES_OF_SEGMENT[segment] ?? []) : [];
}

export interface IssuedToken {
  token: string;
  projectId: string;
  apiKey: { name: string; appId: string };
  scopes: string[];
  issuedAt: number;
  expiresAt: number;
  /** When it was revoked; undefined while it was not. */
  revokedAt?: number;
}

function issued(token: string, record: OAuthTokenRecord): IssuedToken {
  return {
    token,
    projectId: record.project_id,
    apiKey: { name: record.api_key.name, appId: record.api_key.app_id },
    scopes: record.scopes,
    issuedAt: record.issued_at,
    expiresAt: record.expires_at,
    ...(record.revoked_at !== null && { revokedAt: record.revoked_at }),
  };
}

/**
 * The tokens, kept in the store's organization partition (domain/management/oauth-tokens.ts), so that every
 * server instance on one database knows every token and a restart forgets none.
 */
export class TokenRegistry {
  private lastSweep = 0;
  /** The request contexts that authentication made for a bearer token (rather than for a key). */
  private readonly bearerContexts = new WeakSet<object>();

  constructor(
    private readonly store: DomainStore,
    private readonly clock: Clock,
  ) {}

  private organization<R>(work: (ctx: DomainContext) => Promise<R>): Promise<R> {
    return this.store.transaction(ORGANIZATION, (uow) => work({ uow, clock: this.clock }));
  }

  /**
   * A new token for the API key, with the scopes asked for, living exactly the seconds asked for (at least
   * a minute, at most a day; 15 minutes when not asked).
   */
  async issue(owner: { projectId: string; apiKey: { name: string; appId: string } }, scope: string, lifetime = DEFAULT_LIFETIME_SECONDS): Promise<IssuedToken> {
    const scopes = [...new Set(scope.split(' '))];
    const unknown = scopes.filter((name) => !(SCOPES as readonly string[]).includes(name));
    if (unknown.length > 0) throw invalid('invalid_scope', 'Invalid scope', `Unknown scope ${unknown.join(', ')}; see the token request's description for the scopes`);
    if (!Number.isInteger(lifetime) || lifetime < MIN_LIFETIME_SECONDS || lifetime > MAX_LIFETIME_SECONDS) {
      throw invalid('invalid_payload', 'Invalid payload', `expires_in must be ${MIN_LIFETIME_SECONDS} to ${MAX_LIFETIME_SECONDS} seconds, got ${lifetime}`);
    }
    const now = this.clock.now().getTime();
    await this.sweep(now);
    const token = randomBytes(24).toString('base64url');
    const record: OAuthTokenRecord = {
      id: tokenHash(token),
      project_id: owner.projectId,
      api_key: { name: owner.apiKey.name, app_id: owner.apiKey.appId },
      app_id: owner.apiKey.appId,
      scopes,
      issued_at: now,
      expires_at: now + lifetime * 1000,
      revoked_at: null,
      ends_at: now + lifetime * 1000,
    };
    await this.organization(({ uow }) => uow.oauth_tokens.insert(record));
    return issued(token, record);
  }

  /** The token if it can be used now. */
  async active(value: string): Promise<IssuedToken | undefined> {
    const now = this.clock.now().getTime();
    await this.sweep(now);
    const record = await this.organization((ctx) => findToken(ctx, value));
    if (!record || TokenRegistry.ended(record, now)) return undefined;
    return issued(value, record);
  }

  /** Notes that a request acts with a bearer token, not with its API key. */
  markBearer<C extends object>(context: C): C {
    this.bearerContexts.add(context);
    return context;
  }

  /** Whether a request acts with a bearer token; only a request with the API key itself obtains tokens. */
  actsWithToken(context: object): boolean {
    return this.bearerContexts.has(context);
  }

  /** How many tokens are known, ended ones included until they are forgotten. */
  count(): Promise<number> {
    return this.organization(countTokens);
  }

  /**
   * Forgets the tokens that ended (expired or were revoked) more than ENDED_TOKENS_KEPT_MS ago. Runs at
   * most once a minute on each instance, so a lookup rarely pays for it.
   */
  async sweep(now = this.clock.now().getTime(), force = false): Promise<void> {
    if (!force && now - this.lastSweep < SWEEP_EVERY_MS && now >= this.lastSweep) return;
    this.lastSweep = now;
    await this.organization((ctx) => purgeTokens(ctx, now - ENDED_TOKENS_KEPT_MS));
  }

  /** Ends every token an API key obtained (the key was deleted or replaced). */
  async revokeAllOf(appId: string): Promise<void> {
    const now = this.clock.now().getTime();
    await this.organization((ctx) => revokeTokensOf(ctx, appId, now));
  }

  private static ended(record: OAuthTokenRecord, now: number): boolean {
    return record.revoked_at !== null || record.expires_at <= now;
  }

  /** The token as introspection shows it to a caller of `projectId`. */
  async introspect(value: string, projectId: string) {
    const token = await this.organization((ctx) => findToken(ctx, value));
    const mine = token && token.project_id === projectId ? token : undefined;
    const now = this.clock.now().getTime();
    // RFC 7662: a token that cannot be used is answered with `active: false` alone, telling nothing of it.
    if (mine === undefined || TokenRegistry.ended(mine, now)) return { active: false as const };
    return {
      access_token: value,
      client_id: mine.api_key.app_id,
      expires_at: Math.floor(mine.expires_at / 1000),
      expires_in: Math.max(0, Math.floor((mine.expires_at - now) / 1000)),
      scope: mine.scopes.join(' '),
      token_type: 'Bearer' as const,
      active: true as const,
    };
  }

  async revoke(value: string, projectId: string): Promise<void> {
    const now = this.clock.now().getTime();
    await this.organization(async (ctx) => {
      const token = await findToken(ctx, value);
      if (token && token.project_id === projectId) await revokeToken(ctx, token, now);
    });
  }

  /**
   * Whether the token reaches a path: `api` reaches all of /v1 and `client_api` all of /client/v1; another
   * scope reaches the paths it names. Neither kind reaches the other API.
   */
  static allows(token: IssuedToken, path: string): boolean {
    if (path.startsWith('/client/')) {
      return token.scopes.includes('client_api') || clientScopesForPath(path).some((scope) => token.scopes.includes(scope));
    }
    if (token.scopes.includes('api')) return true;
    const needed = scopeForPath(path);
    return needed !== undefined && token.scopes.includes(needed);
  }
}
