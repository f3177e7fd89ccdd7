import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root, found from this file whether it runs from server/ or from dist/server/. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the server');
    dir = parent;
  }
  return dir;
}

export const BUNDLED_CONTRACT = join(packageRoot(), 'generated', 'openapi.json');
/** The bundle with every object closed (see server/contract/strict-twin.ts): what our own responses are held to. */
export const STRICT_CONTRACT = join(packageRoot(), 'generated', 'openapi.strict.json');
export const DOCS_HTML = join(packageRoot(), 'dist', 'docs', 'index.html');
