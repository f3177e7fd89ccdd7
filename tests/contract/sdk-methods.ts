/**
 * Which methods of the published JavaScript SDKs call an operation of this contract, read from the SDKs'
 * own code in node_modules: `@voucherify/sdk` (server-side and client-side) and `voucherify` (the Node.js
 * SDK). The SDK test files drive every such method, recorded through `recording`, and each file ends by
 * checking that every method of the namespaces it covers was called. README's SDK table lists the same
 * methods (checked by tests/unit/sdk-table.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';

export type SdkName = '@voucherify/sdk' | 'voucherify';

export interface SdkMethod {
  sdk: SdkName;
  /** The method as an integrator calls it, from the client object: `vouchers.create`, `client.validateStackable`. */
  name: string;
  /** HTTP method and the contract's path template it reaches. */
  http: string;
  path: string;
  /** The contract operation the call reaches, or undefined when the contract does not have it. */
  operationId?: string;
}

const require = createRequire(import.meta.url);

/** Where each class of `@voucherify/sdk` sits on the object `VoucherifyServerSide` (or `VoucherifyClientSide`) returns. */
const SERVER_SIDE_PLACES: Record<string, string> = {
  AsyncActions: 'asyncActions',
  Balance: 'vouchers.balance',
  Campaigns: 'campaigns',
  CampaignsQualifications: 'campaigns.qualifications',
  Categories: 'categories',
  Consents: 'consents',
  Customers: 'customers',
  Distributions: 'distributions',
  DistributionsPublications: 'distributions.publications',
  Events: 'events',
  Exports: 'distributions.exports',
  Loyalties: 'loyalties',
  MetadataSchemas: 'metadataSchemas',
  Orders: 'orders',
  ProductCollections: 'productCollections',
  Products: 'products',
  PromotionTiers: 'promotions.tiers',
  Promotions: 'promotions',
  PromotionsStacks: 'promotions.stack',
  Qualifications: 'qualifications',
  Redemptions: 'redemptions',
  Rewards: 'rewards',
  Segments: 'segments',
  ValidationRules: 'validationRules',
  Validations: 'validations',
  Vouchers: 'vouchers',
  VouchersQualification: 'vouchers.qualifications',
  ClientSide: 'client',
};

/** The same for the Node.js SDK `voucherify`, whose files are named after their classes. */
const NODE_PLACES: Record<string, string> = {
  Balance: 'vouchers.balance',
  Distributions: 'distributions',
  PromotionTiers: 'promotions.tiers',
};

interface Contract {
  paths: Record<string, Record<string, { operationId?: string }>>;
}

function operations(contract: Contract): Map<string, { path: string; operationId: string }> {
  const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');
  const found = new Map<string, { path: string; operationId: string }>();
  for (const [path, item] of Object.entries(contract.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation?.operationId) found.set(`${method.toUpperCase()} ${shape(path)}`, { path, operationId: operation.operationId });
    }
  }
  return found;
}

/**
 * Every call a method makes to the SDK's HTTP client (`this.client.<verb>(<path>` or, from a closure,
 * `client.<verb>(<path>`, the path possibly on the next line), with `${…}` turned into a parameter.
 */
const CALL = /(?:this\.)?\bclient\.(get|post|put|delete|patch)\(\s*(?:[\w$.]+\s*\?\s*)?([`'])([^`']*)\2(?:\s*:\s*([`'])([^`']*)\4)?/g;
/** A class, a method of it (two spaces in; generators too), an object of methods a constructor sets up, and its methods. */
const CLASS = /^(?:module\.exports = )?class (\w+)/gm;
const MEMBER = /^ {2}(?=\S)(?:async[ \t]*)?\*?[ \t]*(\w+) ?\(.*\) \{$/gm;
const NESTED_OBJECT = /^ {4}this\.(\w+) = \{$/gm;
const NESTED_MEMBER = /^ {6}(?=\S)(\w+) ?\(.*\) \{$/gm;

type Mark = { at: number; kind: 'class' | 'member' | 'object' | 'nested' | 'call'; match: RegExpMatchArray };

function methodsOf(
  sdk: SdkName,
  source: string,
  place: (className: string) => string,
  base: (className: string) => string,
  known: Map<string, { path: string; operationId: string }>,
): SdkMethod[] {
  const marks: Mark[] = [];
  const mark = (pattern: RegExp, kind: Mark['kind']) => {
    for (const match of source.matchAll(pattern)) marks.push({ at: match.index ?? 0, kind, match });
  };
  mark(CLASS, 'class');
  mark(MEMBER, 'member');
  mark(NESTED_OBJECT, 'object');
  mark(NESTED_MEMBER, 'nested');
  mark(CALL, 'call');
  marks.sort((a, b) => a.at - b.at);
  const methods: SdkMethod[] = [];
  let className = '';
  let method = '';
  let nestedObject = '';
  for (const { kind, match } of marks) {
    if (kind === 'class') className = match[1]!;
    else if (kind === 'member') {
      method = match[1]!;
      nestedObject = '';
    } else if (kind === 'object') nestedObject = match[1]!;
    else if (kind === 'nested' && nestedObject) method = `${nestedObject}.${match[1]!}`;
    else if (kind === 'call') {
      if (method === '' || method === 'constructor') continue;
      const verb = match[1]!.toUpperCase();
      // A call with two paths (`campaignId ? a : b`) reaches two operations.
      for (const template of [match[3], match[5]].filter((text): text is string => text !== undefined)) {
        const path = `${base(className)}${template.replace(/\$\{[^}]*\}/g, '{}')}`;
        const operation = known.get(`${verb} ${path}`);
        methods.push({
          sdk,
          name: `${place(className)}.${method}`,
          http: verb,
          path: operation?.path ?? path,
          ...(operation && { operationId: operation.operationId }),
        });
      }
    }
  }
  // One entry per method and operation (a method may make the same call in two branches).
  return methods.filter((entry, index) => methods.findIndex((other) => other.name === entry.name && other.path === entry.path && other.http === entry.http) === index);
}

export function voucherifySdkMethods(contract: Contract): SdkMethod[] {
  const file = join(dirname(require.resolve('@voucherify/sdk/package.json')), 'dist', 'voucherifysdk.esm.js');
  return methodsOf(
    '@voucherify/sdk',
    readFileSync(file, 'utf8'),
    (className) => SERVER_SIDE_PLACES[className] ?? className,
    (className) => (className === 'ClientSide' ? '/client/v1' : '/v1'),
    operations(contract),
  );
}

export function nodeSdkMethods(contract: Contract): SdkMethod[] {
  const dir = join(dirname(require.resolve('voucherify/package.json')), 'src');
  const known = operations(contract);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.js') && /^[A-Z]/.test(file) && !['ApiClient.js', 'VoucherifyError.js'].includes(file))
    .flatMap((file) => {
      const className = basename(file, '.js');
      const place = NODE_PLACES[className] ?? className.charAt(0).toLowerCase() + className.slice(1);
      return methodsOf('voucherify', readFileSync(join(dir, file), 'utf8'), () => place, () => '/v1', known);
    });
}

/**
 * The client with every method call noted in `calls` by its place (`vouchers.balance.create`), however deep.
 * Plain values (the client's settings) pass through untouched.
 */
export function recording<T extends object>(client: T, calls: Set<string>, prefix = ''): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property !== 'string') return value;
      const place = prefix ? `${prefix}.${property}` : property;
      if (typeof value === 'function') {
        return (...args: unknown[]) => {
          calls.add(place);
          return (value as (...parameters: unknown[]) => unknown).apply(target, args);
        };
      }
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return recording(value as object, calls, place);
      return value;
    },
  });
}
