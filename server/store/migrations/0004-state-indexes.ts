/**
 * The indexes of the tables that took over what a server kept in its own memory (OAuth tokens, export files),
 * so that any instance serves any request. A frozen copy of their declarations, as in 0002.
 */
import { createIndexes } from '../sql/indexes.js';
import type { Migration } from './migration.js';

const DECLARED = {
  oauth_tokens: { indexed: ['app_id'] },
  export_chunks: { indexed: ['export_id'] },
} as const;

export const stateIndexes: Migration = {
  name: '0004-state-indexes',
  up: (sql) => createIndexes(sql, DECLARED),
};
