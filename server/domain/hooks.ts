/**
 * Sets the listeners of the slots that modules call to tell the features built on them what happened (see
 * listener-slot.ts). Importing this module is enough: schema.ts does, so every store, in the server and in
 * the tests, comes with the slots set.
 */
import { segmentEntered } from './customers.js';
import { earnOnSegmentEntered, earnOnTierJoined } from './loyalty/earning.js';
import { tierJoined } from './loyalty/tiers.js';

segmentEntered.set(earnOnSegmentEntered);
tierJoined.set(earnOnTierJoined);
