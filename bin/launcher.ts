#!/usr/bin/env node
/**
 * The `promo-loyalty-contract` command of the light package. The contract kit needs this repository's suite,
 * reference server, Jest and Express, which the light package leaves out so that a team wanting only the
 * contract, its types and the client installs a few megabytes. In a clone (or wherever the kit's files and
 * dependencies are present) this runs the kit; elsewhere it says where the kit is instead of failing on a
 * missing module.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const kit = new URL('./contract.js', import.meta.url);
const require = createRequire(import.meta.url);
const missing = ['jest', '@swc/jest', 'express'].filter((name) => {
  try {
    require.resolve(name);
    return false;
  } catch {
    return true;
  }
});

if (existsSync(kit) && missing.length === 0) {
  await import(kit.href);
} else {
  const why = existsSync(kit)
    ? `Its dependencies are not installed here (${missing.join(', ')}): in a clone of the repository, run \`make install build\`.`
    : 'This package holds the contract (generated/openapi.json), its TypeScript types, the typed client and the API reference.';
  process.stderr.write(
    `promo-loyalty-contract: the contract kit cannot run from here. ${why}\n` +
      'The kit (the contract suite, the reference server and the test runner) is the package promo-loyalty-contract-kit; run it with\n\n' +
      '  npx promo-loyalty-contract-kit contract --base-url URL --app-id ID --app-token TOKEN\n\n' +
      '(`npx promo-loyalty-contract-kit --help` lists every option).\n',
  );
  process.exitCode = 2;
}
