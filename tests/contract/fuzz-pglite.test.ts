/** Schema-driven fuzzing on PGlite, an in-memory PostgreSQL (the suite: fuzz-suite.ts). */
import { fuzzSuite } from './fuzz-suite.js';

fuzzSuite('pglite');
