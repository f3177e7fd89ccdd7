/**
 * The typed client: openapi-fetch over the generated `paths`, with the base URL and credentials set once.
 * `import createClient from 'promo-loyalty-contract/client'` and `import { createApiClient } from …` are the
 * same function: the default follows openapi-fetch's own `createClient` habit, the name reads well beside it.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from '../generated/openapi.js';

export type { components, operations, paths };
export type ApiClient = Client<paths>;

export interface ClientOptions {
  baseUrl: string;
  /** Server-side API key: sent as X-App-Id and X-App-Token. */
  appId?: string;
  appToken?: string;
  /** Management key: sent as X-Management-Id and X-Management-Token, for `/management/v1`. */
  managementId?: string;
  managementToken?: string;
  /** Extra headers for every request. */
  headers?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
}

export function createApiClient(options: ClientOptions): ApiClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.appId !== undefined) headers['X-App-Id'] = options.appId;
  if (options.appToken !== undefined) headers['X-App-Token'] = options.appToken;
  if (options.managementId !== undefined) headers['X-Management-Id'] = options.managementId;
  if (options.managementToken !== undefined) headers['X-Management-Token'] = options.managementToken;
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    headers,
    ...(options.fetch && { fetch: options.fetch }),
  });
}

export default createApiClient;
