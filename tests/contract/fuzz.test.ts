/** Schema-driven fuzzing on the memory store (the suite: fuzz-suite.ts). */
import { fuzzSuite } from './fuzz-suite.js';

fuzzSuite('memory');
