/**
 * Holds each webhook kind's payload schema (the contract's `webhooks` entry for the kind) to the public
 * API's field inventory for that event: every field it documents, with its types, enum values, nullability
 * and formats, and nothing required that the API may leave out. Each gap is named with the component schema
 * that holds the field, so the area owning that schema knows it is theirs: the envelope and the data
 * schemas (`Webhook*`) belong to webhooks, the resources inside `data` (Voucher, Campaign, Redemption…) to
 * their own areas.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { PayloadChecker } from '../contract/webhook-receiver.js';
import { checkWebhook, type Gap, type Schema } from '../inventory/coverage.js';
import { hasInventory, readWebhooks } from '../inventory/public-api.js';

type Json = Record<string, unknown>;

interface Contract {
  components: { schemas: Record<string, Json> & { WebhookEventType: { enum: string[] } }; examples: Record<string, { value: { type: string } }> };
  webhooks: Record<
    string,
    { post: { operationId: string; requestBody: { content: { 'application/json': { schema: Schema; examples?: Record<string, { $ref: string }> } } } } }
  >;
}

const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as Contract;
const kinds = contract.components.schemas.WebhookEventType.enum;
const describeWithInventory = hasInventory() ? describe : describe.skip;

/** The payload schema of a kind: its own entry under `webhooks`, named by the kind it carries. */
function payloadSchema(kind: string): Schema | undefined {
  return contract.webhooks[kind]?.post.requestBody.content['application/json'].schema;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A schema node with the component schema it was reached through. */
type Node = { schema: Json; component: string };

/** The node and every schema it is made of ($ref, allOf, oneOf, anyOf), each with its component. */
function expand(schema: unknown, component: string, depth = 0): Node[] {
  if (!isObject(schema) || depth > 16) return [];
  const out: Node[] = [{ schema, component }];
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').at(-1)!;
    out.push(...expand(contract.components.schemas[name], name, depth + 1));
  }
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    if (Array.isArray(schema[key])) for (const member of schema[key]) out.push(...expand(member, component, depth + 1));
  }
  return out;
}

/** The component schema(s) holding a field: those of the deepest object on its path that the contract has. */
function holder(root: Schema, field: string): string {
  const steps = field.split('.').flatMap((segment) => {
    const [, name, suffixes] = /^(.*?)((?:\[\]|\{\})*)$/.exec(segment)!;
    return [...(name ? [name] : []), ...(suffixes!.match(/\[\]|\{\}/g) ?? [])];
  });
  let nodes = expand(root, '(payload)');
  for (const step of steps.slice(0, -1)) {
    const next = nodes.flatMap(({ schema, component }) => {
      const properties = isObject(schema.properties) ? schema.properties : {};
      const child = step === '[]' ? schema.items : step === '{}' ? schema.additionalProperties : (properties[step] ?? schema.additionalProperties);
      return expand(child, component);
    });
    if (!next.some(({ schema }) => isObject(schema.properties) || schema.items !== undefined)) break;
    nodes = next;
  }
  const holders = new Set(nodes.filter(({ schema }) => isObject(schema.properties)).map(({ component }) => component));
  return [...holders].sort().join('|') || '(payload)';
}

interface NamedGap extends Gap {
  holder: string;
}

const gapsOf = (kind: string, inventory: ReturnType<typeof readWebhooks>): NamedGap[] => {
  const root = payloadSchema(kind)!;
  const facts = inventory.find((webhook) => webhook.type === kind)!;
  return checkWebhook(contract as unknown as Json, facts, root)
    .filter((gap) => gap.severity === 'error')
    .map((gap) => ({ ...gap, holder: holder(root, gap.field) }));
};

/** Whether the webhooks area owns the schema holding a gap: the payload itself, its envelope and data schemas. */
const ownedHere = (gap: NamedGap) => gap.holder.split('|').every((name) => name === '(payload)' || name.startsWith('Webhook'));
const line = (gap: NamedGap) => `${gap.holder}: ${gap.field}: ${gap.problem}`;

describe('webhook payload examples', () => {
  test('when a webhook entry shows an example, then it is a payload of the kind the entry is for, with no field the contract does not name', () => {
    // Lint checks examples too, but lets fields through where a schema is an allOf; the strict twin does not.
    const checker = new PayloadChecker();
    const shown = Object.entries(contract.webhooks).flatMap(([key, item]) =>
      Object.values(item.post.requestBody.content['application/json'].examples ?? {}).map((example) => ({
        key,
        payload: contract.components.examples[example.$ref.split('/').at(-1)!]!.value,
      })),
    );
    expect(shown.filter(({ key }) => key !== 'event').map(({ key }) => key).sort()).toEqual([...kinds].sort());
    expect(shown.filter(({ key, payload }) => key !== 'event' && payload.type !== key)).toEqual([]);
    expect(shown.flatMap(({ payload }) => checker.violations(payload))).toEqual([]);
  });
});

describeWithInventory('webhook payloads against the public API inventory', () => {
  const inventory = hasInventory() ? readWebhooks() : [];

  test('when the interface lists an event kind, then the inventory describes it and the contract has its payload schema', () => {
    expect(kinds).toHaveLength(30);
    expect(kinds.filter((kind) => !inventory.some((webhook) => webhook.type === kind))).toEqual([]);
    expect(kinds.filter((kind) => payloadSchema(kind) === undefined)).toEqual([]);
  });

  test.each(kinds)('when %s is delivered, then its envelope and data schemas document every field the API sends, as the API types it', (kind) => {
    expect(gapsOf(kind, inventory).filter(ownedHere).map(line)).toEqual([]);
  });

  test.each(kinds)('when %s is delivered, then the resources inside its data document every field the API sends there too', (kind) => {
    const gaps = gapsOf(kind, inventory).filter((gap) => !ownedHere(gap));
    // Grouped by the schema holding the field, so each area finds its own.
    const byHolder = new Map<string, string[]>();
    for (const gap of gaps) byHolder.set(gap.holder, [...(byHolder.get(gap.holder) ?? []), `${gap.field}: ${gap.problem}`]);
    expect(Object.fromEntries(byHolder)).toEqual({});
  });
});
