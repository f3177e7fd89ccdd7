/** Unit tests of the domain, the contract suite over HTTP, the docs in a browser, the contract kit, and hardening. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Installed as a dependency (the contract kit run through npx), this package sits under node_modules, which
// Jest leaves out of its file map, its test paths and its transforms by default: keep this package in. Its name
// is read, not written here, because the kit's package (promo-loyalty-contract-kit) ships this same file.
const installed = fileURLToPath(import.meta.url).includes('/node_modules/');
const { name } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const outsideThisPackage = [`/node_modules/(?!${name}/)`];
const asDependency = installed
  ? { haste: { retainAllFiles: true }, testPathIgnorePatterns: outsideThisPackage, transformIgnorePatterns: outsideThisPackage }
  : {};

const common = {
  ...asDependency,
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};

export default {
  // Generous: the contract suite shares the machine's cores with the in-process server and other workers.
  testTimeout: 30_000,
  // Each test file starts its own in-process servers, and what they keep is only freed with the process: a
  // worker past this size after a file is replaced by a fresh one (with one core to spare, Jest would otherwise
  // run every file in this one process, which grew past 4 GB and slowed to timeouts in the later files).
  workerIdleMemoryLimit: '1GB',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/tests/unit/**/*.test.ts'] },
    { ...common, displayName: 'contract', testMatch: ['<rootDir>/tests/contract/**/*.test.ts'] },
    { ...common, displayName: 'browser', testMatch: ['<rootDir>/tests/browser/**/*.test.ts'] },
    { ...common, displayName: 'kit', testMatch: ['<rootDir>/tests/kit/**/*.test.ts'] },
    // Attacks on the reference server's own process: descriptors, memory, signals, a spawned server.
    { ...common, displayName: 'hardening', testMatch: ['<rootDir>/tests/hardening/**/*.test.ts'] },
    // Several server processes on one PostgreSQL database (the throwaway cluster make test starts).
    { ...common, displayName: 'instances', testMatch: ['<rootDir>/tests/instances/**/*.test.ts'] },
    // Clients made by other generators from the bundled contract, and Prism's mock started on it.
    { ...common, displayName: 'generators', testMatch: ['<rootDir>/tests/generators/**/*.test.ts'] },
    // The published packages: what each tarball holds, and the light one installed and used as the README says.
    { ...common, displayName: 'packaging', testMatch: ['<rootDir>/tests/packaging/**/*.test.ts'] },
  ],
  reporters: ['default', '<rootDir>/tests/summary-reporter.cjs'],
};
