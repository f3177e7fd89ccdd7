import { HttpError } from '../http/errors.js';
import type { HandlersOf } from './types.js';

export const oauthHandlers: HandlersOf<'generate-oauth-token' | 'introspect-oauth-token' | 'revoke-oauth-token'> = {
  'generate-oauth-token': async ({ body, context, services }) => {
    // A token that could mint tokens would outlive itself: a short-lived token could make a day-long one,
    // and revoking it would leave its children working. Only the key obtains tokens.
    if (services.tokens.actsWithToken(context)) {
      throw new HttpError(403, 'forbidden', 'Forbidden', 'A bearer token cannot obtain a token; ask with the API key (X-App-Id and X-App-Token)');
    }
    const token = await services.tokens.issue(context, body.scope, body.expires_in === undefined ? undefined : Number(body.expires_in));
    return {
      status: 200,
      body: {
        access_token: token.token,
        token_type: 'Bearer',
        // The granted lifetime, from the token's own issue time (a second clock reading could lose a second).
        expires_in: Math.round((token.expiresAt - token.issuedAt) / 1000),
        expires_at: Math.floor(token.expiresAt / 1000),
        scope: token.scopes.join(' '),
        client_id: token.apiKey.appId,
      },
    };
  },
  'introspect-oauth-token': async ({ body, context, services }) => ({ status: 200, body: await services.tokens.introspect(body.access_token, context.projectId) }),
  'revoke-oauth-token': async ({ body, context, services }) => {
    await services.tokens.revoke(body.access_token, context.projectId);
    return { status: 204 };
  },
};
