/**
 * Scratch databases on a PostgreSQL server, for the tests and the benchmark: each made fresh, and dropped
 * by the caller when done.
 */
import pg from 'pg';

let databases = 0;

/**
 * A new database on the server of `url`, dropped by the returned function. Made with ICU's English collation
 * where the server has ICU, so that the store's code point order is shown not to lean on the database's.
 */
export async function freshDatabase(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const name = `store_test_${process.pid}_${Date.now()}_${databases++}`;
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`);
  } catch {
    await admin.query(`CREATE DATABASE ${name}`);
  }
  const fresh = new URL(url);
  fresh.pathname = `/${name}`;
  return {
    url: fresh.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

