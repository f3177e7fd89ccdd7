/**
 * Where export files live. On the memory store, on disk (DiskExportFiles): one directory per project under a
 * root, `<export ID>.csv` each, written under a temporary name and renamed once complete, so a half-written file
 * is never served; without a configured root, one temporary directory per process holds them, removed when the
 * process exits. On a store that outlives the process, in the store (StoreExportFiles), so that every instance
 * serves every file; the download is still streamed a piece at a time.
 *
 * Download addresses carry a token: an HMAC of the project and the export, so it needs no storage and cannot be
 * made up for another export. Instances on one database share the secret (domain/management/server-secrets.ts).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { Clock } from '../domain/clock.js';
import type { DomainContext } from '../domain/context.js';
import { addChunk, chunkAfter, deleteChunks } from '../domain/exports/chunks.js';
import type { DomainStore } from '../domain/schema.js';

/** Temporary roots made by this process, removed when it exits. */
const temporary = new Set<string>();
let cleanupRegistered = false;

function temporaryRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'promo-loyalty-exports-'));
  temporary.add(root);
  if (!cleanupRegistered) {
    cleanupRegistered = true;
    process.once('exit', () => {
      for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
    });
  }
  return root;
}

/** A file being written: commit makes it the export's file, discard drops it. */
export interface ExportOutput {
  stream: Writable;
  commit(): Promise<void>;
  discard(): Promise<void>;
}

export abstract class ExportFiles {
  private readonly secret: Buffer;
  private stopped = false;

  /** `secret`: what download tokens are signed with; random (this process's alone) when not given. */
  constructor(secret?: Buffer) {
    this.secret = secret ?? randomBytes(32);
  }

  abstract create(projectId: string, exportId: string): Promise<ExportOutput>;
  /** The export's file, or undefined when it has none (not written yet, or removed). */
  abstract open(projectId: string, exportId: string): Promise<Readable | undefined>;
  abstract remove(projectId: string, exportId: string): Promise<void>;

  token(projectId: string, exportId: string): string {
    return createHmac('sha256', this.secret).update(`${projectId}\u0000${exportId}`).digest('base64url').slice(0, 32);
  }

  checkToken(projectId: string, exportId: string, token: string): boolean {
    const expected = Buffer.from(this.token(projectId, exportId));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** Tells running exports to stop at their next page (the server is shutting down). */
  stop(): void {
    this.stopped = true;
  }

  get stopping(): boolean {
    return this.stopped;
  }
}

export class DiskExportFiles extends ExportFiles {
  private root: string | undefined;

  /** `root`: where to keep the files; a temporary directory of this process when not given. */
  constructor(root?: string, secret?: Buffer) {
    super(secret);
    this.root = root;
  }

  private async directory(projectId: string): Promise<string> {
    this.root ??= temporaryRoot();
    const dir = join(this.root, encodeURIComponent(projectId));
    await mkdir(dir, { recursive: true });
    return dir;
  }

  private async file(projectId: string, exportId: string): Promise<string> {
    if (!/^[A-Za-z0-9_-]+$/.test(exportId)) throw new Error(`Not an export ID: ${exportId}`);
    return join(await this.directory(projectId), `${exportId}.csv`);
  }

  async create(projectId: string, exportId: string): Promise<ExportOutput> {
    const path = await this.file(projectId, exportId);
    const partial = `${path}.partial`;
    const stream = createWriteStream(partial);
    return {
      stream,
      commit: () => rename(partial, path),
      discard: async () => {
        stream.destroy();
        await rm(partial, { force: true });
      },
    };
  }

  /** The export's file, or undefined when it has none (not written yet, or removed). */
  async open(projectId: string, exportId: string): Promise<Readable | undefined> {
    const path = await this.file(projectId, exportId);
    const found = await stat(path).catch(() => undefined);
    return found?.isFile() ? createReadStream(path) : undefined;
  }

  /** The size of the export's file in bytes, or undefined when it has none. */
  async size(projectId: string, exportId: string): Promise<number | undefined> {
    const found = await stat(await this.file(projectId, exportId)).catch(() => undefined);
    return found?.isFile() ? found.size : undefined;
  }

  async remove(projectId: string, exportId: string): Promise<void> {
    const path = await this.file(projectId, exportId);
    await rm(path, { force: true });
  }
}

/** Bytes per piece of a file kept in the store. */
export const EXPORT_CHUNK_BYTES = 256 * 1024;

export class StoreExportFiles extends ExportFiles {
  constructor(
    private readonly store: DomainStore,
    private readonly clock: Clock,
    secret?: Buffer,
  ) {
    super(secret);
  }

  private unit<R>(projectId: string, work: (ctx: DomainContext) => Promise<R>): Promise<R> {
    return this.store.transaction(projectId, (uow) => work({ uow, clock: this.clock }));
  }

  async create(projectId: string, exportId: string): Promise<ExportOutput> {
    // A file cut off earlier (the export runs again) leaves no pieces behind to mix with the new ones.
    await this.remove(projectId, exportId);
    let pending: Buffer[] = [];
    let size = 0;
    let seq = 0;
    const flush = async () => {
      if (size === 0) return;
      const bytes = Buffer.concat(pending, size);
      pending = [];
      size = 0;
      await this.unit(projectId, (ctx) => addChunk(ctx, exportId, seq++, bytes));
    };
    // Each piece is written once it is full, and the writer waits for it: memory holds at most one piece.
    const stream = new Writable({
      write: (data: Buffer, _encoding, done) => {
        pending.push(data);
        size += data.length;
        if (size < EXPORT_CHUNK_BYTES) return done();
        flush().then(() => done(), done);
      },
      final: (done) => {
        flush().then(() => done(), done);
      },
    });
    return {
      stream,
      // The pieces are all written once the stream finished; the export's DONE status is what makes them served.
      commit: async () => {},
      discard: async () => {
        stream.destroy();
        await this.remove(projectId, exportId);
      },
    };
  }

  async open(projectId: string, exportId: string): Promise<Readable | undefined> {
    const first = await this.unit(projectId, (ctx) => chunkAfter(ctx, exportId, -1));
    if (!first) return undefined;
    const read = (seq: number) => this.unit(projectId, (ctx) => chunkAfter(ctx, exportId, seq));
    async function* pieces() {
      for (let chunk: Awaited<ReturnType<typeof read>> = first; chunk; chunk = await read(chunk.seq)) yield chunk.bytes;
    }
    return Readable.from(pieces(), { objectMode: false });
  }

  async remove(projectId: string, exportId: string): Promise<void> {
    while ((await this.unit(projectId, (ctx) => deleteChunks(ctx, exportId))) > 0);
  }
}
