/**
 * `node dist/server/store/sql/migrate.js`: runs the SQL store's pending migrations on the database the server
 * would use (`DATABASE_URL`, else the PGlite directory `DATA_DIR`) and says which ran. Servers also migrate
 * when they start; this is for running it ahead of a deployment.
 */
import { MIGRATIONS } from '../migrations/index.js';
import { pgDriver, pgliteDriver } from './driver.js';
import { migrate } from './migrator.js';
import { lockDataDir } from './data-dir-lock.js';

const url = process.env.DATABASE_URL;
const dataDir = process.env.DATA_DIR;
if (!url && !dataDir) {
  console.error('Set DATABASE_URL (postgres://…) or DATA_DIR (a PGlite directory): the memory store has nothing to migrate.');
  process.exit(2);
}
// A PGlite directory is one process's at a time: migrating under a running server would be a second one.
let release = () => {};
try {
  if (!url) release = lockDataDir(dataDir!);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const driver = url ? pgDriver(url) : await pgliteDriver(dataDir);
try {
  const ran = await migrate(driver, MIGRATIONS);
  console.log(ran.length === 0 ? 'No migration to run.' : `Ran ${ran.join(', ')}.`);
} finally {
  await driver.close();
  release();
}
