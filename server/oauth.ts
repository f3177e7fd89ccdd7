/**
 * OAuth 2.0 bearer tokens: issued to an API key with scopes, usable in place of the key within those
 * scopes until they expire or are revoked. Tokens live in memory, beside the API keys they act for.
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
  revoked: boolean;
}

export class TokenRegistry {
  private readonly tokens = new Map<string, IssuedToken>();

  constructor(private readonly clock: Clock) {}

  issue(owner: { projectId: string; apiKey: { name: string; appId: string } }, scope: string, lifetime = DEFAULT_LIFETIME_SECONDS): IssuedToken {
    const scopes = [...new Set(scope.split(' '))];
    const unknown = scopes.filter((name) => !(SCOPES as readonly string[]).includes(name));
    if (unknown.length > 0) throw invalid('invalid_scope', 'Invalid scope', `Unknown scope ${unknown.join(', ')}; see the token request's description for the scopes`);
    if (!Number.isInteger(lifetime) || lifetime < 60 || lifetime > 86_400) {
      throw invalid('invalid_payload', 'Invalid payload', `expires_in must be 60 to 86400 seconds, got ${lifetime}`);
    }
    const now = this.clock.now().getTime();
    const token: IssuedToken = {
      token: randomBytes(24).toString('base64url'),
      projectId: owner.projectId,
      apiKey: owner.apiKey,
      scopes,
      issuedAt: now,
      expiresAt: now + lifetime * 1000,
      revoked: false,
    };
    this.tokens.set(token.token, token);
    return token;
  }

  /** The token if it can be used now. */
  active(value: string): IssuedToken | undefined {
    const token = this.tokens.get(value);
    if (!token || token.revoked || token.expiresAt <= this.clock.now().getTime()) return undefined;
    return token;
  }

  /** The token as introspection shows it to a caller of `projectId`. */
  introspect(value: string, projectId: string) {
    const token = this.tokens.get(value);
    const mine = token && token.projectId === projectId ? token : undefined;
    const now = this.clock.now().getTime();
    const active = mine !== undefined && !mine.revoked && mine.expiresAt > now;
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
    if (token && token.projectId === projectId) token.revoked = true;
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
