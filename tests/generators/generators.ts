/**
 * The client generators teams already use, each run as its users run it on `generated/openapi.json`, and a
 * small program per generated client that makes two real calls with it (create a customer, list vouchers).
 * The programs are TypeScript held as text: they compile only inside the matrix's temp dir, next to the code
 * the generator wrote there, under `tsc --strict`.
 */
import { join } from 'node:path';

export interface Generator {
  /** The generator's package, as teams install it. */
  name: string;
  /** Its own folder in the matrix's temp dir. */
  dir: string;
  /** The command that writes the client into `<root>/<dir>/client`: the package's own CLI script, and its arguments. */
  command(root: string, contract: string): { bin: string; args: string[] };
  /** Extra files the generator's setup needs (its config, a custom fetch), path → text. */
  setup?(root: string, contract: string): Record<string, string>;
  /** Files written into `<dir>` once the client is generated (the generator may empty its output folder first). */
  after?: Record<string, string>;
  /** `<dir>/call.ts`: creates a customer and lists vouchers with the generated client, then prints both. */
  caller: string;
}

/**
 * Shared by every caller: where the server is and with which key (from the test, through the environment),
 * how to print what the two calls returned, and how a failed call ends the program.
 */
export const COMMON = `
export const settings = {
  baseUrl: required('BASE_URL'),
  headers: { 'X-App-Id': required('APP_ID'), 'X-App-Token': required('APP_TOKEN') },
  sourceId: required('SOURCE_ID'),
};

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(\`\${name} is not set\`);
  return value;
}

/** Prints one JSON line with what the two calls returned: the new customer, and the codes of the vouchers listed. */
export function report(customer: { id?: string; source_id?: string | null }, vouchers: { code?: string | null }[] | undefined): void {
  console.log(JSON.stringify({ customer: { id: customer.id, source_id: customer.source_id }, voucherCodes: (vouchers ?? []).map((voucher) => voucher.code) }));
}

export function run(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
`;

/**
 * A package's CLI script, run with node. Not through node_modules/.bin: two installed packages claim the
 * name `openapi` there (openapi-typescript-codegen and @redocly/cli), and either may hold it.
 */
const bin = (...path: string[]): string => join('node_modules', ...path);

export const GENERATORS: Generator[] = [
  {
    name: 'openapi-typescript + openapi-fetch',
    dir: 'openapi-typescript',
    // The flag the Makefile passes: without it, every field with a default becomes required in responses
    // and request bodies alike, and minimal bodies stop compiling.
    command: (root, contract) => ({
      bin: bin('openapi-typescript', 'bin', 'cli.js'),
      args: [contract, '--output', join(root, 'openapi-typescript', 'client', 'schema.ts'), '--default-non-nullable', 'false'],
    }),
    caller: `
import createClient from 'openapi-fetch';
import type { paths } from './client/schema.js';
import { report, run, settings } from '../common.js';

async function main(): Promise<void> {
  const client = createClient<paths>({ baseUrl: settings.baseUrl, headers: settings.headers });
  const created = await client.POST('/v1/customers', { body: { source_id: settings.sourceId, name: 'Generated client' } });
  if (!created.data) throw new Error(\`create customer: \${created.response.status}\`);
  const listed = await client.GET('/v1/vouchers', { params: { query: { limit: 100 } } });
  if (!listed.data) throw new Error(\`list vouchers: \${listed.response.status}\`);
  report(created.data, listed.data.vouchers);
}
run(main);
`,
  },
  {
    name: '@hey-api/openapi-ts',
    dir: 'hey-api',
    // Its config file, since the CLI has no flag for import extensions: without one it writes them only when it
    // finds a NodeNext tsconfig above its own install, and extensionless imports do not resolve under NodeNext.
    command: (root) => ({ bin: bin('@hey-api', 'openapi-ts', 'bin', 'run.js'), args: ['--file', join(root, 'hey-api', 'openapi-ts.config.mjs')] }),
    setup: (root, contract) => ({
      'openapi-ts.config.mjs': `export default {
  input: ${JSON.stringify(contract)},
  output: { path: ${JSON.stringify(join(root, 'hey-api', 'client'))}, module: { extension: '.js' } },
  plugins: ['@hey-api/client-fetch'],
};
`,
    }),
    caller: `
import { client } from './client/client.gen.js';
import { createCustomer, listVouchers } from './client/index.js';
import { report, run, settings } from '../common.js';

async function main(): Promise<void> {
  client.setConfig({ baseUrl: settings.baseUrl, headers: settings.headers });
  const created = await createCustomer({ body: { source_id: settings.sourceId, name: 'Generated client' } });
  if (!created.data) throw new Error(\`create customer: \${created.response.status}\`);
  const listed = await listVouchers({ query: { limit: 100 } });
  if (!listed.data) throw new Error(\`list vouchers: \${listed.response.status}\`);
  report(created.data, listed.data.vouchers);
}
run(main);
`,
  },
  {
    name: 'orval',
    dir: 'orval',
    command: (root) => ({ bin: bin('orval', 'dist', 'bin', 'orval.js'), args: ['--config', join(root, 'orval', 'orval.config.cjs')] }),
    // orval's fetch client calls paths relative to the page; its documented way to reach another host and
    // send credentials is a custom fetch (a "mutator").
    setup: (root, contract) => ({
      'orval.config.cjs': `module.exports = {
  matrix: {
    input: { target: ${JSON.stringify(contract)} },
    output: {
      target: ${JSON.stringify(join(root, 'orval', 'client', 'api.ts'))},
      client: 'fetch',
      mode: 'single',
      // extension: how the client imports the mutator; NodeNext resolution needs the emitted file's name.
      override: { mutator: { path: ${JSON.stringify(join(root, 'orval', 'custom-fetch.ts'))}, name: 'customFetch', extension: '.js' } },
    },
  },
};
`,
      'custom-fetch.ts': `import { settings } from '../common.js';

export async function customFetch<T>(url: string, init: RequestInit): Promise<T> {
  const headers = new Headers(init.headers);
  for (const [name, value] of Object.entries(settings.headers)) headers.set(name, value);
  const response = await fetch(\`\${settings.baseUrl}\${url}\`, { ...init, headers });
  const text = await response.text();
  return { data: text ? JSON.parse(text) : undefined, status: response.status, headers: response.headers } as T;
}
`,
    }),
    caller: `
import { createCustomer, listVouchers } from './client/api.js';
import { report, run, settings } from '../common.js';

async function main(): Promise<void> {
  const created = await createCustomer({ source_id: settings.sourceId, name: 'Generated client' });
  if (created.status !== 200) throw new Error(\`create customer: \${created.status}\`);
  const listed = await listVouchers({ limit: 100 });
  if (listed.status !== 200) throw new Error(\`list vouchers: \${listed.status}\`);
  report(created.data, listed.data.vouchers);
}
run(main);
`,
  },
  {
    name: 'swagger-typescript-api',
    dir: 'swagger-typescript-api',
    command: (root, contract) => ({
      bin: bin('swagger-typescript-api', 'dist', 'cli.mjs'),
      args: ['generate', '--path', contract, '--output', join(root, 'swagger-typescript-api', 'client'), '--name', 'api.ts'],
    }),
    caller: `
import { Api } from './client/api.js';
import { report, run, settings } from '../common.js';

async function main(): Promise<void> {
  const api = new Api({ baseUrl: settings.baseUrl, baseApiParams: { headers: settings.headers } });
  const created = await api.v1.createCustomer({ source_id: settings.sourceId, name: 'Generated client' });
  const listed = await api.v1.listVouchers({ limit: 100 });
  report(created.data, listed.data.vouchers);
}
run(main);
`,
  },
  {
    name: 'openapi-typescript-codegen',
    dir: 'openapi-typescript-codegen',
    command: (root, contract) => ({
      bin: bin('openapi-typescript-codegen', 'bin', 'index.js'),
      args: ['--input', contract, '--output', join(root, 'openapi-typescript-codegen', 'client'), '--client', 'fetch', '--useUnionTypes'],
    }),
    // It writes imports without extensions and has no setting for them, so under NodeNext its folder is a
    // CommonJS package (where such imports resolve), imported from ES modules by its index.js.
    // --useUnionTypes: its enums cannot name an empty-string value (the exports' `order: ''`), union types can.
    after: { 'client/package.json': JSON.stringify({ type: 'commonjs' }) },
    caller: `
import { CustomersService, OpenAPI, VouchersService } from './client/index.js';
import { report, run, settings } from '../common.js';

async function main(): Promise<void> {
  OpenAPI.BASE = settings.baseUrl;
  OpenAPI.HEADERS = settings.headers;
  const created = await CustomersService.createCustomer({ source_id: settings.sourceId, name: 'Generated client' });
  const listed = await VouchersService.listVouchers(100);
  report(created, listed.vouchers);
}
run(main);
`,
  },
];
