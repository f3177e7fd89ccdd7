/**
 * OAuth 2.0 bearer tokens: issued to an API key with scopes, usable in place of the key within those
 * scopes until they expire or are revoked. Tokens live in memory, beside the API keys they act for.
 *
 * Only the API key itself obtains tokens (a token cannot mint another; see server/http/auth.ts), so every
 * token derives from its key alone: it ends when it expires, when it is revoked, or when its key is gone.
 * A token that ended is still known for a while, so introspection can say what it was, then forgotten.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from './domain/clock.js';
import { invalid } from './domain/errors.js';

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

export class TokenRegistry {
  private readonly tokens = new Map<string, IssuedToken>();
  private lastSweep = 0;
  /** The request contexts that authentication made for a bearer token (rather than for a key). */
  private readonly bearerContexts = new WeakSet<object>();

  constructor(private readonly clock: Clock) {}

  /**
   * A new token for the API key, with the scopes asked for, living exactly the seconds asked for (at least
   * a minute, at most a day; 15 minutes when not asked).
   */
  issue(owner: { projectId: string; apiKey: { name: string; appId: string } }, scope: string, lifetime = DEFAULT_LIFETIME_SECONDS): IssuedToken {
    const scopes = [...new Set(scope.split(' '))];
    const unknown = scopes.filter((name) => !(SCOPES as readonly string[]).includes(name));
    if (unknown.length > 0) throw invalid('invalid_scope', 'Invalid scope', `Unknown scope ${unknown.join(', ')}; see the token request's description for the scopes`);
    if (!Number.isInteger(lifetime) || lifetime < MIN_LIFETIME_SECONDS || lifetime > MAX_LIFETIME_SECONDS) {
      throw invalid('invalid_payload', 'Invalid payload', `expires_in must be ${MIN_LIFETIME_SECONDS} to ${MAX_LIFETIME_SECONDS} seconds, got ${lifetime}`);
    }
    const now = this.clock.now().getTime();
    this.sweep(now);
    const token: IssuedToken = {
      token: randomBytes(24).toString('base64url'),
      projectId: owner.projectId,
      apiKey: { name: owner.apiKey.name, appId: owner.apiKey.appId },
      scopes,
      issuedAt: now,
      expiresAt: now + lifetime * 1000,
    };
    this.tokens.set(token.token, token);
    return token;
  }

  /** The token if it can be used now. */
  active(value: string): IssuedToken | undefined {
    const now = this.clock.now().getTime();
    this.sweep(now);
    const token = this.tokens.get(value);
    if (!token || TokenRegistry.ended(token, now)) return undefined;
    return token;
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
  get size(): number {
    return this.tokens.size;
  }

  /**
   * Forgets the tokens that ended (expired or were revoked) more than ENDED_TOKENS_KEPT_MS ago. Runs at
   * most once a minute, so a lookup rarely pays for it.
   */
  sweep(now = this.clock.now().getTime(), force = false): void {
    if (!force && now - this.lastSweep < SWEEP_EVERY_MS && now >= this.lastSweep) return;
    this.lastSweep = now;
    for (const [value, token] of this.tokens) {
      const endedAt = Math.min(token.expiresAt, token.revokedAt ?? Infinity);
      if (endedAt + ENDED_TOKENS_KEPT_MS <= now) this.tokens.delete(value);
    }
  }

  /** Ends every token an API key obtained (the key was deleted or replaced). */
  revokeAllOf(appId: string): void {
    const now = this.clock.now().getTime();
    for (const token of this.tokens.values()) if (token.apiKey.appId === appId && token.revokedAt === undefined) token.revokedAt = now;
  }

  private static ended(token: IssuedToken, now: number): boolean {
    return token.revokedAt !== undefined || token.expiresAt <= now;
  }

  /** The token as introspection shows it to a caller of `projectId`. */
  introspect(value: string, projectId: string) {
    const token = this.tokens.get(value);
    const mine = token && token.projectId === projectId ? token : undefined;
    const now = this.clock.now().getTime();
    const active = mine !== undefined && !TokenRegistry.ended(mine, now);
    return {
      access_token: value,
      client_id: mine?.apiKey.appId ?? '',
      expires_at: mine ? Math.floor(mine.expiresAt / 1000) : 0,
      expires_in: active ? Math.max(0, Math.floor((mine.expiresAt - now) / 1000)) : 0,
      scope: mine?.scopes.join(' ') ?? '',
      token_type: 'Bearer' as const,
      active,
    };
  }

  revoke(value: string, projectId: string): void {
    const token = this.tokens.get(value);
    if (token && token.projectId === projectId && token.revokedAt === undefined) token.revokedAt = this.clock.now().getTime();
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
