/**
 * Writes an export's file in the background. The matching objects are found once (their keys, in order), then
 * read back a page at a time, each page in its own unit of work, and streamed through a CSV writer into the file:
 * memory holds one page of rows and the keys, never the file, so an export of millions of rows is written in
 * the same memory as one of a hundred. Requests keep being served between pages.
 */
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { stringify } from 'csv-stringify';
import type { Clock } from '../domain/clock.js';
import { exportPlan, setExportStatus } from '../domain/exports/exports.js';
import { EXPORT_KINDS, type ExportLinks, type PageCache } from '../domain/exports/kinds.js';
import type { DomainStore } from '../domain/schema.js';
import type { ExportFiles, ExportOutput } from './files.js';

/** Rows read per unit of work. */
export const EXPORT_PAGE = 500;

export interface ExportDependencies {
  store: DomainStore;
  clock: Clock;
  files: ExportFiles;
  links: ExportLinks;
}

class Stopped extends Error {}

/** A value as a CSV cell: text as it is, lists joined by commas, objects (metadata, details) as JSON, nothing empty. */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null)) return value.join(',');
  return JSON.stringify(value);
}

export async function runExport(deps: ExportDependencies, projectId: string, exportId: string): Promise<void> {
  const { store, clock, files, links } = deps;
  let output: ExportOutput | undefined;
  try {
    const started = await store.transaction(projectId, async (uow) => {
      const record = await uow.exports.get(exportId);
      if (!record || record.status !== 'SCHEDULED') return undefined;
      const ctx = { uow, clock };
      await setExportStatus(ctx, exportId, 'IN_PROGRESS');
      const plan = exportPlan(record, clock.now());
      return { plan, kind: EXPORT_KINDS[record.exported_object], keys: await EXPORT_KINDS[record.exported_object].scan(ctx, plan) };
    });
    if (!started) return;
    const { plan, kind, keys } = started;
    const columns: ReadonlySet<string> = new Set(plan.fields);
    output = await files.create(projectId, exportId);
    const csv = stringify({ header: true, columns: plan.fields });
    const written = pipeline(csv, output.stream);
    for (let start = 0; start < keys.length; start += EXPORT_PAGE) {
      if (files.stopping) throw new Stopped('the server stopped before the file was complete');
      const page = keys.slice(start, start + EXPORT_PAGE);
      const rows = await store.transaction(projectId, async (uow) => {
        // A deleted export stops here.
        if (!(await uow.exports.get(exportId))) return undefined;
        const ctx = { uow, clock };
        const rowContext = { cache: new Map() as PageCache, links, fields: columns };
        const out: string[][] = [];
        for (const key of page) {
          const row = await kind.row(ctx, key, rowContext);
          if (row) out.push(plan.fields.map((field) => cell(row[field])));
        }
        return out;
      });
      if (!rows) throw new Stopped();
      for (const row of rows) {
        if (!csv.write(row)) await once(csv, 'drain');
      }
      await nextTurn();
    }
    csv.end();
    await written;
    await output.commit();
    output = undefined;
    const kept = await store.transaction(projectId, (uow) => setExportStatus({ uow, clock }, exportId, 'DONE'));
    if (!kept) await files.remove(projectId, exportId);
  } catch (error) {
    await output?.discard();
    if (!(error instanceof Stopped)) console.error(`export ${exportId} failed`, error);
    // A deleted export is gone and stays so; any other ends in ERROR.
    const reason = error instanceof Error ? error.message : String(error);
    await store.transaction(projectId, (uow) => setExportStatus({ uow, clock }, exportId, 'ERROR', reason || 'stopped'));
  }
}
