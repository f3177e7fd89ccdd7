/**
 * Fixture files: a known set of objects the server holds from the start. Locations can only come from
 * here (the interface has no operation that creates them); everything else is loaded through the same
 * domain functions the API uses, so fixtures obey the same rules.
 *
 * The file is JSON with optional sections, each an array of the bodies the matching create operation takes:
 * `locations` ({ id?, name, shape, created_at?, updated_at? }), `products`, `skus` (with `product_id`), `customers`,
 * `campaigns` and `vouchers` (with `code`). A bad entry stops the start with a message naming it.
 */
import { readFile } from 'node:fs/promises';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { createCampaign } from './domain/campaigns.js';
import { createProduct } from './domain/catalog/products.js';
import { createSku } from './domain/catalog/skus.js';
import type { Clock } from './domain/clock.js';
import type { DomainContext } from './domain/context.js';
import { upsertCustomer } from './domain/customers.js';
import { DomainError } from './domain/errors.js';
import { addLocation } from './domain/locations.js';
import { createVoucher, generateCampaignVouchers } from './domain/vouchers.js';
import type { DomainStore } from './domain/schema.js';
import { FRESH } from './store/fresh.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * Each section: the contract schema of one entry, and how to load it. Where the create operation takes a
 * value from its path (`key`), the entry carries it beside the body.
 */
const SECTIONS = {
  locations: {
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'shape'],
      properties: {
        id: { type: 'string', pattern: '^loc_[A-Za-z0-9_-]+$' },
        name: { type: 'string', minLength: 1, maxLength: 255 },
        shape: { $ref: 'contract#/components/schemas/LocationShape' },
        created_at: { type: 'string', format: 'date-time' },
        updated_at: { type: ['string', 'null'], format: 'date-time' },
      },
    },
    load: (ctx: DomainContext, entry: any) => addLocation(ctx, entry),
  },
  products: { schema: { $ref: 'contract#/components/schemas/ProductsCreateRequestBody' }, load: (ctx: DomainContext, entry: any) => createProduct(ctx, entry) },
  skus: {
    key: 'product_id',
    schema: { $ref: 'contract#/components/schemas/ProductsSkusCreateRequestBody' },
    load: (ctx: DomainContext, { product_id, ...entry }: any) => createSku(ctx, product_id, entry),
  },
  customers: { schema: { $ref: 'contract#/components/schemas/CustomersCreateRequestBody' }, load: (ctx: DomainContext, entry: any) => upsertCustomer(ctx, entry) },
  campaigns: {
    schema: { $ref: 'contract#/components/schemas/CampaignsCreateRequestBody' },
    load: async (ctx: DomainContext, entry: any) => {
      const campaign = await createCampaign(ctx, { ...FRESH, ...entry, vouchers_count: 0 });
      if (entry.vouchers_count) await generateCampaignVouchers(ctx, campaign, {}, entry.vouchers_count);
      return campaign;
    },
  },
  vouchers: {
    key: 'code',
    schema: { $ref: 'contract#/components/schemas/VouchersCreateWithCodeRequestBody' },
    load: (ctx: DomainContext, entry: any) => createVoucher(ctx, entry),
  },
} as const;

type Section = keyof typeof SECTIONS;
export type Fixtures = Partial<Record<Section, unknown[]>>;

export class FixtureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FixtureError';
  }
}

function validators(contract: object): Record<Section, ValidateFunction> {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema({ ...FRESH, ...contract, $id: 'contract' });
  return Object.fromEntries(Object.entries(SECTIONS).map(([name, section]) => [name, ajv.compile(section.schema)])) as Record<Section, ValidateFunction>;
}

/** Checks the file's shape and every entry against the contract; the message names the first bad entry. */
export function checkFixtures(raw: unknown, contract: object, source: string): Fixtures {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new FixtureError(`${source}: the file must hold a JSON object of sections`);
  const check = validators(contract);
  for (const [name, entries] of Object.entries(raw)) {
    if (!(name in SECTIONS)) throw new FixtureError(`${source}: unknown section "${name}" (known: ${Object.keys(SECTIONS).join(', ')})`);
    if (!Array.isArray(entries)) throw new FixtureError(`${source}: section "${name}" must be an array`);
    entries.forEach((entry, index) => {
      const validate = check[name as Section];
      const key = (SECTIONS[name as Section] as { key?: string }).key;
      let body = entry;
      if (key) {
        const { [key]: value, ...rest } = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
        if (typeof value !== 'string' || value.length === 0) throw new FixtureError(`${source}: ${name}[${index}] needs a "${key}" string`);
        body = rest;
      }
      if (!validate(body)) {
        const [error] = validate.errors ?? [];
        throw new FixtureError(`${source}: ${name}[${index}]${error?.instancePath ?? ''} ${error?.message ?? 'is invalid'}`);
      }
    });
  }
  return raw as Fixtures;
}

/** Loads the fixtures into one project in one unit of work: all of them, or none and an error naming the entry. */
export async function loadFixtures(store: DomainStore, clock: Clock, projectId: string, fixtures: Fixtures, source: string): Promise<void> {
  await store.transaction(projectId, async (uow) => {
    const ctx = { uow, clock };
    for (const name of Object.keys(SECTIONS) as Section[]) {
      const entries = fixtures[name] ?? [];
      for (const [index, entry] of entries.entries()) {
        try {
          await SECTIONS[name].load(ctx, entry);
        } catch (error) {
          const reason = error instanceof DomainError ? error.details : error instanceof Error ? error.message : String(error);
          throw new FixtureError(`${source}: ${name}[${index}]: ${reason}`);
        }
      }
    }
  });
}

export async function readFixtures(path: string, contract: object): Promise<Fixtures> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new FixtureError(`${path}: cannot read the fixture file (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new FixtureError(`${path}: not valid JSON (${(error as Error).message})`);
  }
  return checkFixtures(raw, contract, path);
}

/** The fixture file named by `--fixtures <path>` (or `--fixtures=<path>`), else by FIXTURES. */
export function fixturesPath(argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  const index = argv.findIndex((arg) => arg === '--fixtures' || arg.startsWith('--fixtures='));
  if (index >= 0) {
    const arg = argv[index]!;
    const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[index + 1];
    if (!value) throw new FixtureError('--fixtures needs a file path');
    return value;
  }
  return env.FIXTURES || undefined;
}

/** Reads, checks and loads the fixture file, if one is named; returns how many objects it held. */
export async function loadFixtureFile(store: DomainStore, clock: Clock, projectId: string, path: string | undefined, contractFile: string): Promise<number> {
  if (!path) return 0;
  const contract = JSON.parse(await readFile(contractFile, 'utf8')) as object;
  const fixtures = await readFixtures(path, contract);
  await loadFixtures(store, clock, projectId, fixtures, path);
  return Object.values(fixtures).reduce((sum, entries) => sum + (entries?.length ?? 0), 0);
}
