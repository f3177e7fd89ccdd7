/**
 * A Store that checks metadata against the project's metadata schemas on every write of a resource whose
 * type has one. It sits at the storage boundary so that every use case that writes metadata is covered,
 * including ones added later. Only a write that changes the metadata is checked: metadata stored before a
 * schema existed stays readable and writable in other respects until it is next changed.
 */
import { isDeepStrictEqual } from 'node:util';
import { lazyUnitOfWork, PassThroughTable, withTransaction, type Row, type Table } from '../../store/store.js';
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

export function withMetadataSchemas(store: DomainStore): DomainStore {
  const checkedUnitOfWork = lazyUnitOfWork(store.schema, (uow: DomainUnitOfWork, name) => {
    const relatedObject = RESOURCES[name];
    const table = uow[name] as Table<Row>;
    return relatedObject ? (new CheckedTable(table as Table<WithMetadata>, uow, relatedObject) as unknown as Table<Row>) : table;
  });
  return withTransaction(store, (run, projectId, work) => run(projectId, (uow) => work(checkedUnitOfWork(uow))));
}

/**
 * A table of resources with metadata: a write that changes a row's metadata is checked against its schema.
 *
 * Each write is one async step that awaits what it calls (`return await`, not a promise handed on, which costs
 * an async function two more turns and a promise): this layer made 22 of a redemption's 258 promises, the most
 * of the three layers over the store (async_hooks count).
 */
class CheckedTable extends PassThroughTable<WithMetadata> {
  constructor(
    inner: Table<WithMetadata>,
    private readonly uow: DomainUnitOfWork,
    private readonly relatedObject: string,
  ) {
    super(inner);
  }

  override async insert(row: WithMetadata): Promise<WithMetadata> {
    const schema = await this.uow.metadata_schemas.getBy('related_object', this.relatedObject);
    if (schema) await checkAgainst(this.uow, schema, row);
    return await this.inner.insert(row);
  }

  override async update(row: WithMetadata): Promise<WithMetadata> {
    const before = await this.inner.get(row.id);
    // An update that kept the stored metadata object (a spread copy of the row) has the same metadata, and the
    // comparison of its fields is not needed.
    const kept = before !== undefined && before.metadata === row.metadata;
    if (!kept && !isDeepStrictEqual(before?.metadata ?? {}, row.metadata ?? {})) {
      const schema = await this.uow.metadata_schemas.getBy('related_object', this.relatedObject);
      if (schema) await checkAgainst(this.uow, schema, row);
    }
    return await this.inner.update(row);
  }
}

/** Checks a row's metadata against the project's schema for its kind of object. */
async function checkAgainst(uow: DomainUnitOfWork, schema: MetadataSchema, row: WithMetadata): Promise<void> {
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
}
