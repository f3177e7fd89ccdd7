/**
 * Where export files live: one directory per project under a root, `<export ID>.csv` each, written under a
 * temporary name and renamed once complete, so a half-written file is never served. Without a configured root,
 * one temporary directory per process holds them, removed when the process exits.
 *
 * Download addresses carry a token: an HMAC of the project and the export, so it needs no storage and cannot be
 * made up for another export.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, type WriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

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
  stream: WriteStream;
  commit(): Promise<void>;
  discard(): Promise<void>;
}

export class ExportFiles {
  private root: string | undefined;
  private readonly secret = randomBytes(32);
  private stopped = false;

  /** `root`: where to keep the files; a temporary directory of this process when not given. */
  constructor(root?: string) {
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
