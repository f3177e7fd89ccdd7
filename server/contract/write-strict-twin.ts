/**
 * `node write-strict-twin.js <bundle.json> <twin.json>`: the build step of `make generate` that derives the
 * strict twin (see strict-twin.ts) from the bundled contract.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { strictTwin } from './strict-twin.js';

const [source, target] = process.argv.slice(2);
if (!source || !target) {
  process.stderr.write('usage: write-strict-twin <bundle.json> <twin.json>\n');
  process.exit(2);
}
const twin = strictTwin(JSON.parse(readFileSync(source, 'utf8')) as Record<string, unknown>);
writeFileSync(target, `${JSON.stringify(twin, null, 2)}\n`);
