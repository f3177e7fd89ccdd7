/**
 * A Store that checks metadata against the project's metadata schemas on every write of a resource whose
 * type has one. It sits at the storage boundary so that every use case that writes metadata is covered,
 * including ones added later. Only a write that changes the metadata is checked: metadata stored before a
 * schema existed stays readable and writable in other respects until it is next changed.
 */
import { isDeepStrictEqual } from 'node:util';
import { lazyUnitOfWork, overriding, withTransaction, type Row, type Table } from '../../store/store.js';
import type { DomainSchema, DomainStore, DomainUnitOfWork } from '../schema.js';
import { checkMetadata, namedObjectTypes } from './metadata-rules.js';
import type { MetadataSchema } from './schemas.js';

/** Tables of resources that carry metadata, and the `related_object` of their schema. */
const RESOURCES: Partial<Record<keyof DomainSchema, string>> = {
  customers: 'customer',
  products: 'product',
  skus: 'sku',
  vouchers: 'voucher',
  campaigns: 'campaign',
  orders: 'order',
  promotion_tiers: 'promotion_tier',
  redemptions: 'redemption',
  publications: 'publication',
  rewards: 'reward',
  loyalty_tiers: 'loyalty_tier',
  earning_rules: 'earning_rule',
};

type WithMetadata = Row & { metadata?: Record<string, unknown> | null };
type Wrap = (table: Table<WithMetadata>, relatedObject: string) => Table<WithMetadata>;
type CheckedUnitOfWork = (state: { uow: DomainUnitOfWork; wrap: Wrap }) => DomainUnitOfWork;

export function withMetadataSchemas(store: DomainStore): DomainStore {
  const checkedUnitOfWork: CheckedUnitOfWork = lazyUnitOfWork(store.schema, ({ uow, wrap }: { uow: DomainUnitOfWork; wrap: Wrap }, name) => {
    const relatedObject = RESOURCES[name];
    const table = uow[name] as Table<Row>;
    return relatedObject ? (wrap(table as Table<WithMetadata>, relatedObject) as Table<Row>) : table;
  });
  return withTransaction(store, (projectId, work) => store.transaction(projectId, (uow) => work(checking(uow, checkedUnitOfWork))));
}

function checking(uow: DomainUnitOfWork, checkedUnitOfWork: CheckedUnitOfWork): DomainUnitOfWork {
  const check = async (relatedObject: string, row: WithMetadata) => {
    const schema = await uow.metadata_schemas.getBy('related_object', relatedObject);
    if (!schema) return;
    // The custom types its object properties name, and theirs in turn, loaded once before the check.
    const named = new Map<string, MetadataSchema | undefined>();
    const toLoad = namedObjectTypes(schema);
    for (let type = toLoad.pop(); type !== undefined; type = toLoad.pop()) {
      if (named.has(type)) continue;
      const found = await uow.metadata_schemas.getBy('related_object', type);
      named.set(type, found);
      if (found) toLoad.push(...namedObjectTypes(found));
    }
    checkMetadata(schema, row.metadata, (type) => named.get(type));
  };
  const wrap: Wrap = (table, relatedObject) =>
    overriding(table, {
      insert: async (row) => {
        await check(relatedObject, row);
        return table.insert(row);
      },
      update: async (row) => {
        const before = await table.get(row.id);
        if (!isDeepStrictEqual(before?.metadata ?? {}, row.metadata ?? {})) await check(relatedObject, row);
        return table.update(row);
      },
    });
  return checkedUnitOfWork({ uow, wrap });
}
