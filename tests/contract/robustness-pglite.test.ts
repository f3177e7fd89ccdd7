/** Broken input to every operation, on PGlite, an in-memory PostgreSQL (the suite: robustness-suite.ts). */
import { robustnessSuite } from './robustness-suite.js';

robustnessSuite('pglite');
