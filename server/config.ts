/** Server configuration from the environment, with demo defaults that are printed when used. */
import type { ApiKey } from './http/auth.js';

export interface ServerConfig {
  host: string;
  port: number;
  apiKeys: ApiKey[];
  validateResponses: boolean;
  rateLimitPerMinute: number;
  /** Names of the variables that fell back to demo values. */
  defaulted: string[];
}

export const DEFAULT_PROJECT_ID = 'proj_default';
export const DEMO_APP_ID = 'demo-app-id';
export const DEMO_APP_TOKEN = 'demo-app-token';

function integer(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative integer, got '${value}'`);
  return parsed;
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const defaulted: string[] = [];
  const pick = (name: string, fallback: string) => {
    const value = env[name];
    if (value) return value;
    defaulted.push(name);
    return fallback;
  };
  return {
    host: env.HOST || '0.0.0.0',
    port: integer('PORT', env.PORT, 3000),
    apiKeys: [
      {
        name: 'default',
        appId: pick('APP_ID', DEMO_APP_ID),
        appToken: pick('APP_TOKEN', DEMO_APP_TOKEN),
        projectId: env.PROJECT_ID || DEFAULT_PROJECT_ID,
      },
    ],
    validateResponses: env.VALIDATE_RESPONSES === '1' || env.VALIDATE_RESPONSES === 'true',
    rateLimitPerMinute: integer('RATE_LIMIT_PER_MINUTE', env.RATE_LIMIT_PER_MINUTE, 0),
    defaulted,
  };
}
