/**
 * One process per `DATA_DIR`. PGlite keeps its database in the directory and has no lock of its own: a second
 * server on the same directory started, answered, and its writes were lost when either stopped. So a server
 * takes the directory's lock file first, as PostgreSQL does with `postmaster.pid`: the file is created only if
 * it does not exist (an atomic create), and holds the holder's process ID, host and start time. A second
 * process finds it, sees that its holder is alive, and stops with a message naming the holder. A lock left by
 * a process that was killed (no such process on this host any more) is stale: it is taken over. A lock written
 * on another host cannot be checked from here, and is left for a person to remove.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const LOCK_FILE = 'server.lock';

export interface LockHolder {
  pid: number;
  host: string;
  since: string;
}

export class DataDirLocked extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(
      holder
        ? `DATA_DIR ${dataDir} is in use by process ${holder.pid} on ${holder.host} (since ${holder.since}): one server per data directory. ` +
            `Stop that server, or use another DATA_DIR (several instances share data through DATABASE_URL).` +
            (holder.host === hostname() ? '' : ` If that process is gone, remove ${join(dataDir, LOCK_FILE)}.`)
        : `DATA_DIR ${dataDir} is locked (${join(dataDir, LOCK_FILE)} cannot be read); remove it if no server uses the directory`,
    );
    this.name = 'DataDirLocked';
  }
}

/** Whether a process of this host with that ID is alive (a process of another user counts as alive). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
    if (typeof holder.pid === 'number' && typeof holder.host === 'string' && typeof holder.since === 'string') return holder as LockHolder;
  } catch {
    // unreadable or half written: handled as an unknown holder
  }
  return undefined;
}

/**
 * Takes the directory's lock for this process, or throws DataDirLocked. Returns the function that gives it
 * back (the lock file is removed only while it is still this process's).
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, LOCK_FILE);
  const me: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(file);
      const stale = holder !== undefined && holder.host === me.host && holder.pid !== process.pid && !alive(holder.pid);
      if (!stale || attempt > 0) throw new DataDirLocked(dataDir, holder);
      rmSync(file, { force: true });
      continue;
    }
    try {
      writeSync(fd, JSON.stringify(me));
    } finally {
      closeSync(fd);
    }
    return () => {
      const holder = readHolder(file);
      if (holder?.pid === me.pid && holder.since === me.since) rmSync(file, { force: true });
    };
  }
  throw new DataDirLocked(dataDir, readHolder(file));
}
