import type { components } from '../../generated/openapi.js';
import { invalid } from '../domain/errors.js';
import type { HandlersOf } from './types.js';
import { publicationHandlers } from './publications.js';
import { FRESH } from '../store/fresh.js';

type Schemas = components['schemas'];

/**
 * Publishing from a link (the body given in the query) and from the client side: both are
 * `POST /v1/publications` with its request rebuilt, answered by the same handler and engine.
 */
export const publicationLinkHandlers: HandlersOf<'create-publication-1' | 'create-publication-client-side'> = {
  'create-publication-1': ({ query, ...rest }) => {
    const { customer, voucher, campaign, source_id, metadata } = query;
    if (voucher === undefined && !campaign?.name) throw invalid('invalid_publish_params', 'Invalid publish params', 'Name the voucher to publish (`voucher`) or its campaign (`campaign[name]`)');
    const count = campaign?.count === undefined ? undefined : Number(campaign.count);
    const body: Schemas['PublicationsCreateRequestBody'] = {
      customer: customer as Schemas['CustomerReference'],
      ...(voucher !== undefined && { voucher }),
      ...(campaign?.name && { campaign: { name: campaign.name, ...(count !== undefined && { count }) } }),
      ...(source_id !== undefined && { source_id }),
      ...(metadata && { metadata }),
    } as Schemas['PublicationsCreateRequestBody'];
    return publicationHandlers['create-publication']({ ...FRESH, ...rest, query: { ...(query.join_once !== undefined && { join_once: query.join_once }) }, body });
  },
  'create-publication-client-side': (input) => publicationHandlers['create-publication']({ ...input }),
};
