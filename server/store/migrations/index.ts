/** The SQL store's migrations, in the order they run. Append only: a released migration never changes. */
import { rows } from './0001-rows.js';
import { domainIndexes } from './0002-domain-indexes.js';
import { claimIndexes } from './0003-claim-indexes.js';
import { stateIndexes } from './0004-state-indexes.js';
import { orderedIndexes } from './0005-ordered-indexes.js';
import { deliveryStatusIndex } from './0006-delivery-status-index.js';
import { tierExpiryIndex } from './0007-tier-expiry-index.js';
import { rowCounts } from './0008-row-counts.js';
import { sharedEntry } from './0009-shared-entry.js';
import { keptVersion } from './0010-kept-version.js';
import { countsAtCommit } from './0011-counts-at-commit.js';
import { tablesApart } from './0012-tables-apart.js';
import { addedAmounts } from './0013-added-amounts.js';
import type { Migration } from './migration.js';

export type { Migration } from './migration.js';

export const MIGRATIONS: readonly Migration[] = [rows, domainIndexes, claimIndexes, stateIndexes, orderedIndexes, deliveryStatusIndex, tierExpiryIndex, rowCounts, sharedEntry, keptVersion, countsAtCommit, tablesApart, addedAmounts];
