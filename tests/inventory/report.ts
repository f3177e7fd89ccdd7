/**
 * `node dist/tests/inventory/report.js [operationId-or-tag...]`: prints every gap between the contract and
 * the public API's field inventory, grouped by operation. The unit test `public-api-coverage` fails on the
 * same errors; this prints them all, with warnings, for the work of closing them.
 */
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { checkOperation, findOperation, type Gap } from './coverage.js';
import { readOperations } from './public-api.js';

const doc = JSON.parse(readFileSync(process.env.CONTRACT_FILE ?? BUNDLED_CONTRACT, 'utf8')) as Record<string, unknown>;
const wanted = process.argv.slice(2);
const warnings = process.env.WARNINGS === '1';
let errors = 0;
let warned = 0;
for (const operation of readOperations()) {
  const found = findOperation(doc, operation.method, operation.path);
  if (!found) continue;
  const id = found.operation.operationId;
  if (wanted.length > 0 && !wanted.includes(id) && !wanted.includes(operation.tag)) continue;
  const gaps = checkOperation(doc, operation).filter((gap: Gap) => warnings || gap.severity === 'error');
  if (gaps.length === 0) continue;
  console.log(`\n## ${operation.method.toUpperCase()} ${operation.path} (${id}; ${operation.tag})`);
  for (const gap of gaps) {
    if (gap.severity === 'error') errors++;
    else warned++;
    console.log(`  ${gap.severity === 'error' ? 'E' : 'w'} ${gap.where} ${gap.field}: ${gap.problem}`);
  }
}
console.log(`\n${errors} errors, ${warned} warnings`);
