import { deleteBinEntry, listBinEntries } from '../domain/bin.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

type BinOperations = 'list-bin-entries' | 'delete-bin-entry';

export const binHandlers: HandlersOf<BinOperations> = {
  'list-bin-entries': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listBinEntries(ctx, query));
    return {
      status: 200,
      body: {
        object: 'list',
        data_ref: 'data',
        data: page.rows,
        total: page.total,
        has_more: page.has_more,
        ...(page.more_starting_after !== undefined && { more_starting_after: page.more_starting_after }),
      },
    };
  },
  'delete-bin-entry': async ({ path, context, services }) => {
    await inProject(services, context, (ctx) => deleteBinEntry(ctx, path.binEntryId));
    return { status: 204 };
  },
};
