/**
 * An export's file kept in the store, as numbered pieces of its bytes: any server instance on the database
 * serves the file another wrote, and a restart keeps it. The file is kept, not made again at download from
 * the rows, because an export is a snapshot of when it ran (the rows change after, or are gone). Bytes go as
 * base64: a JSON string in the database cannot hold every character a CSV cell may (U+0000).
 */
import { table } from '../../store/schema.js';
import type { DomainContext } from '../context.js';

export interface ExportChunkRecord {
  /** `<export ID>.<seq>`. */
  id: string;
  export_id: string;
  /** From 0, in the file's order. */
  seq: number;
  data: string;
}

export const EXPORT_CHUNKS_TABLE = table<ExportChunkRecord>({ unique: [], indexed: ['export_id'], kinds: { seq: 'number' } });

export function addChunk({ uow }: DomainContext, exportId: string, seq: number, bytes: Buffer): Promise<unknown> {
  return uow.export_chunks.insert({ id: `${exportId}.${seq}`, export_id: exportId, seq, data: bytes.toString('base64') });
}

/** The piece after `seq` (the first with -1), or undefined at the end of the file. */
export async function chunkAfter({ uow }: DomainContext, exportId: string, seq: number): Promise<{ seq: number; bytes: Buffer } | undefined> {
  const { rows } = await uow.export_chunks.query({ index: { field: 'export_id', value: exportId }, orderBy: { field: 'seq', direction: 'asc' }, after: seq, limit: 1 });
  const [row] = rows;
  return row && { seq: row.seq, bytes: Buffer.from(row.data, 'base64') };
}

/**
 * Deletes up to `limit` pieces of the export's file; how many. A few at a time: each piece is read whole before it
 * is deleted, so a large file is never read at once.
 */
export async function deleteChunks({ uow }: DomainContext, exportId: string, limit = 8): Promise<number> {
  const { rows } = await uow.export_chunks.query({ index: { field: 'export_id', value: exportId }, limit });
  for (const row of rows) await uow.export_chunks.delete(row.id);
  return rows.length;
}
