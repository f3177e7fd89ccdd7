import { describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirLocked, LOCK_FILE, lockDataDir } from '../../server/store/sql/data-dir-lock.js';

const dir = () => mkdtempSync(join(tmpdir(), 'lock-'));

/** The ID of a process that has ended: a child run to its end. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid!;
}

describe('the DATA_DIR lock', () => {
  test('when the directory is locked, then a second lock is refused naming the holder, and giving it back frees it', () => {
    const dataDir = dir();
    try {
      const release = lockDataDir(dataDir);
      expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
      // A holder alive on this host: refused, whoever asks (here the same process, as a second server would be).
      const refused = (() => {
        try {
          lockDataDir(dataDir);
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(refused).toBeInstanceOf(DataDirLocked);
      expect((refused as Error).message).toContain(`in use by process ${process.pid} on ${hostname()}`);
      release();
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
      lockDataDir(dataDir)();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('when the holder on this host is gone, then its lock is taken over; one of another host is not', () => {
    const dataDir = dir();
    try {
      writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify({ pid: deadPid(), host: hostname(), since: '2026-01-01T00:00:00.000Z' }));
      const release = lockDataDir(dataDir);
      expect(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
      release();
      writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify({ pid: deadPid(), host: 'elsewhere.example', since: '2026-01-01T00:00:00.000Z' }));
      expect(() => lockDataDir(dataDir)).toThrow(/in use by process \d+ on elsewhere\.example .* If that process is gone, remove/);
      writeFileSync(join(dataDir, LOCK_FILE), 'not json');
      expect(() => lockDataDir(dataDir)).toThrow(/is locked .* cannot be read/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('when a lock was given back after another took the directory over, then the other keeps it', () => {
    const dataDir = dir();
    try {
      const release = lockDataDir(dataDir);
      writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify({ pid: 1, host: hostname(), since: '2026-01-01T00:00:00.000Z' }));
      release();
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(true);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
