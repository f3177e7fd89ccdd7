/**
 * Checks one HTTP exchange against the bundled contract, from the client's side: the status must be one
 * the operation documents, the Content-Type one of the documented media types, and a JSON body must
 * validate against the documented schema. Given the strict twin (every object closed), an undocumented field
 * fails too; given the published contract, only missing, mistyped or out-of-range fields do.
 * This is what lets the suite judge a server that does not validate its own responses.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { STRICT_CONTRACT } from '../../server/paths.js';

// ajv-formats is CommonJS: under Node's ESM its plugin is `default`, under jest's interop `default.default`.
type FormatsPlugin = (ajv: Ajv2020, options: { mode: 'full' }) => unknown;
const formatsModule = ajvFormats as unknown as { default: FormatsPlugin | { default: FormatsPlugin } };
const addFormats: FormatsPlugin = typeof formatsModule.default === 'function' ? formatsModule.default : formatsModule.default.default;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface Response {
  $ref?: string;
  content?: Record<string, { schema?: unknown }>;
}
interface Operation {
  operationId: string;
  responses: Record<string, Response>;
}
interface Contract {
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  components: { responses?: Record<string, Response>; schemas: Record<string, unknown> };
}

export interface Exchange {
  method: string;
  url: string;
  status: number;
  contentType: string | null;
  body: string;
}

export interface Verdict {
  /** The operation the request was routed to, or undefined when the path or method is not in the contract. */
  operationId?: string;
  violations: string[];
  /** Where the JSON body's schema is in the contract, when the response documents one. */
  schemaPointer?: string;
}

interface Route {
  template: string;
  pattern: RegExp;
  item: Contract['paths'][string];
}

/** `/v1/x/{id}` → pointer-escaped `~1v1~1x~1{id}` for a JSON pointer into `paths`. */
/** A request's path as a person reads it: `/v1/customers/{customerId}` where a template went out unfilled, not `%7BcustomerId%7D`. */
export function readablePath(url: string): string {
  const path = new URL(url, 'http://x').pathname;
  try {
    return decodeURI(path);
  } catch {
    return path;
  }
}

export const pointerPart = (text: string) => text.replace(/~/g, '~0').replace(/\//g, '~1');

export class ConformanceChecker {
  private readonly contract: Contract;
  private readonly routes: Route[];
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(contract: Contract = JSON.parse(readFileSync(STRICT_CONTRACT, 'utf8')) as Contract) {
    this.contract = contract;
    // Literal segments win over parameters, as in the server's router: fewer parameters first.
    this.routes = Object.entries(contract.paths)
      .map(([template, item]) => ({
        template,
        item,
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
      }))
      .sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv, { mode: 'full' });
    this.ajv.addSchema(contract as object, 'contract');
  }

  /** The operation a request goes to, by method and path. */
  route(method: string, url: string): { template: string; operation?: Operation } | undefined {
    // A trailing slash names the same resource, as most HTTP frameworks route it.
    const path = new URL(url, 'http://x').pathname.replace(/(.)\/$/, '$1');
    const route = this.routes.find((candidate) => candidate.pattern.test(path));
    if (!route) return undefined;
    return { template: route.template, operation: route.item[method.toLowerCase() as (typeof METHODS)[number]] };
  }

  check(exchange: Exchange): Verdict {
    const routed = this.route(exchange.method, exchange.url);
    const label = `${exchange.method} ${readablePath(exchange.url)} → ${exchange.status}`;
    if (!routed?.operation) {
      // Not an operation of the contract: the answer can only be an error, in the shared shape.
      if (exchange.status < 400) return { violations: [`${label}: a path or method outside the contract succeeded`] };
      return { violations: this.validate('#/components/schemas/Error', exchange, label) };
    }
    const { operation, template } = routed;
    const status = String(exchange.status);
    const key = [status, `${status[0]}XX`, 'default'].find((candidate) => operation.responses[candidate]);
    if (!key) {
      return {
        operationId: operation.operationId,
        violations: [`${label}: status ${status} is not documented for ${operation.operationId}`],
      };
    }
    const pointer = `#/paths/${pointerPart(template)}/${exchange.method.toLowerCase()}/responses/${key}`;
    const response = this.resolve(operation.responses[key]!);
    const content = response.response.content;
    const basePointer = response.pointer ?? pointer;
    const violations: string[] = [];
    if (!content || Object.keys(content).length === 0) {
      if (exchange.body.length > 0) violations.push(`${label}: ${operation.operationId} documents no body, but one was sent`);
      return { operationId: operation.operationId, violations };
    }
    const mediaType = (exchange.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (!content[mediaType]) {
      violations.push(`${label}: Content-Type ${exchange.contentType ?? '(none)'} is not one of ${Object.keys(content).join(', ')}`);
      return { operationId: operation.operationId, violations };
    }
    if (mediaType === 'application/json' && content[mediaType]?.schema) {
      const schemaPointer = `${basePointer}/content/${pointerPart(mediaType)}/schema`;
      violations.push(...this.validate(schemaPointer, exchange, label));
      return { operationId: operation.operationId, violations, schemaPointer };
    }
    return { operationId: operation.operationId, violations };
  }

  /** Whether a value is valid for the schema at a JSON pointer into the contract (`#/components/...`). */
  accepts(pointer: string, value: unknown): boolean {
    return this.compiled(pointer)(value) as boolean;
  }

  private compiled(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `contract${pointer}` });
      this.validators.set(pointer, validate);
    }
    return validate;
  }

  private resolve(response: Response): { response: Response; pointer?: string } {
    if (!response.$ref) return { response };
    const name = response.$ref.split('/').at(-1)!;
    return { response: this.contract.components.responses?.[name] ?? {}, pointer: response.$ref };
  }

  private validate(pointer: string, exchange: Exchange, label: string): string[] {
    let body: unknown;
    try {
      body = JSON.parse(exchange.body);
    } catch {
      return [`${label}: the body is not JSON: ${exchange.body.slice(0, 80)}`];
    }
    const validate = this.compiled(pointer);
    if (validate(body)) return [];
    return (validate.errors ?? []).slice(0, 5).map((error) => {
      const where = error.instancePath || '(body)';
      const property = (error.params as { additionalProperty?: string; unevaluatedProperty?: string });
      const named = property.additionalProperty ?? property.unevaluatedProperty;
      const extra = named === undefined ? '' : ` '${named}'`;
      return `${label}: ${where} ${error.message ?? 'is invalid'}${extra}`;
    });
  }
}
