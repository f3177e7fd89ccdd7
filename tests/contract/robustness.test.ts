/** Broken input to every operation, on the memory store (the suite: robustness-suite.ts). */
import { robustnessSuite } from './robustness-suite.js';

robustnessSuite('memory');
