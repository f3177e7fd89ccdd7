/**
 * Reading an uploaded CSV file with csv-parse, a record at a time: the header names the columns, each later
 * record becomes its cells by column with the line it starts on. Empty lines are skipped and a byte order mark is
 * taken out. A record with more or fewer cells than the header is handed on as such, for the import to report.
 * A file with a NUL in any cell is refused whole by surveyCsv, which runs before an import starts.
 */
import { Readable } from 'node:stream';
import { parse, type CsvError } from 'csv-parse';

export interface CsvRecord {
  /** The line of the file the record starts on (the header is line 1). */
  line: number;
  cells: Record<string, string>;
  /** Set when the record's cell count differs from the header's. */
  width?: { cells: number; columns: number };
}

/** A column name as imports match it: lower case, spaces and dashes as underscores, `.` kept (`metadata.key`). */
export function columnName(raw: string): string {
  return raw.trim().toLowerCase().replace(/[\s-]+/g, '_');
}

function parser() {
  return parse({ bom: true, skip_empty_lines: true, relax_column_count: true, info: true });
}

export class CsvFileError extends Error {
  constructor(readonly line: number | undefined, message: string) {
    super(message);
    this.name = 'CsvFileError';
  }
}

function fileError(error: unknown): CsvFileError {
  const csv = error as Partial<CsvError> & { lines?: number };
  return new CsvFileError(typeof csv.lines === 'number' ? csv.lines : undefined, error instanceof Error ? error.message : String(error));
}

/** The records of a file, after its header. */
export async function* readCsv(file: Buffer): AsyncGenerator<CsvRecord> {
  const records = Readable.from([file]).pipe(parser());
  let header: string[] | undefined;
  let previousEnd = 0;
  try {
    for await (const { record, info } of records as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      // `info.lines` is the line the record ends on; it starts after the one before it and any empty lines.
      const end = info.lines;
      if (!header) {
        header = record.map(columnName);
        previousEnd = end;
        continue;
      }
      const line = previousEnd + 1 + countLeadingEmpty(record, end - previousEnd);
      previousEnd = end;
      const cells: Record<string, string> = {};
      header.forEach((column, index) => {
        if (index < record.length) cells[column] = record[index]!;
      });
      yield { line, cells, ...(record.length !== header.length && { width: { cells: record.length, columns: header.length } }) };
    }
  } catch (error) {
    throw fileError(error);
  }
}

/** Lines between two records that were empty: only known by count, so the record is taken to end its span. */
function countLeadingEmpty(record: string[], span: number): number {
  const own = record.reduce((sum, value) => sum + (value.match(/\n/g)?.length ?? 0), 0) + 1;
  return Math.max(0, span - own);
}

/** The header and the number of records of a file, or why it cannot be read (a quote left open, no header). */
export async function surveyCsv(file: Buffer): Promise<{ columns: string[]; records: number }> {
  const records = Readable.from([file]).pipe(parser());
  let columns: string[] | undefined;
  let count = 0;
  try {
    for await (const { record, info } of records as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      // No store keeps a NUL (PostgreSQL refuses it): the file is refused whole, naming the line, before a job starts.
      if (record.some((cell) => cell.includes('\u0000'))) throw new CsvFileError(info.lines, 'a cell holds a NUL character, which no store keeps');
      if (!columns) columns = record.map(columnName);
      else count++;
    }
  } catch (error) {
    throw error instanceof CsvFileError ? error : fileError(error);
  }
  if (!columns) throw new CsvFileError(1, 'The file is empty; it needs a header row naming its columns');
  return { columns, records: count };
}
