/** What the packaging tests share: running npm and make as a user would, and reading the README's recipes. */
import { spawn } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../server/paths.js';

export const root = packageRoot();

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a user's shell: without the npm_* variables `npm test` sets (a nested npm would take this
 * repository's settings as its own) and without audit, fund and update notices (requests the checks do not need).
 */
export function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return { ...env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ...extra };
}

export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = userEnv()): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs and insists on exit 0, so a failure shows the command's own words. */
export async function mustRun(command: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<Ran> {
  const ran = await run(command, args, cwd, env);
  if (ran.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${ran.code}:\n${ran.stdout}\n${ran.stderr}`);
  return ran;
}

/** The README's text under a heading, up to the next heading of the same or a higher level. */
export function readmeSection(heading: string): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const level = /^#+/.exec(heading)![0].length;
  const start = readme.split('\n').findIndex((line) => line.trim() === heading);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const lines = readme.split('\n').slice(start + 1);
  const end = lines.findIndex((line) => new RegExp(`^#{1,${level}} `).test(line));
  return lines.slice(0, end < 0 ? undefined : end).join('\n');
}

/** The fenced code blocks of one language in a piece of the README, in order. */
export function codeBlocks(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!);
}

/** Shell lines of a block, continuation lines joined and comments dropped. */
export function shellLines(block: string): string[] {
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

/** Bytes on disk under a folder (symbolic links counted as links) and the packages installed in it. */
export function installed(nodeModules: string): { bytes: number; packages: string[] } {
  let bytes = 0;
  const packages: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      bytes += lstatSync(path).size;
      if (entry.isDirectory()) walk(path);
    }
  };
  const collect = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const names = entry.name.startsWith('@') ? readdirSync(join(dir, entry.name)).map((name) => `${entry.name}/${name}`) : [entry.name];
      for (const name of names) {
        packages.push(name);
        const nested = join(dir, name, 'node_modules');
        if (readdirSync(join(dir, name)).includes('node_modules')) collect(nested);
      }
    }
  };
  walk(nodeModules);
  collect(nodeModules);
  return { bytes, packages: packages.sort() };
}
