/**
 * Requests and responses of one shape. Express hands every request and response the app's prototypes
 * (`app.request`, `app.response`) with `Object.setPrototypeOf`, on every request. V8 then gives each of those
 * objects a hidden class (map) of its own, so no two requests look alike to the engine: every property read
 * or write on a request or a response, in Express, the validator, body parsing and this server's middlewares,
 * meets a new shape each time, and its inline cache gives up and takes the slow, generic path.
 *
 * So the server's HTTP server makes its requests and responses as instances of two classes whose prototypes
 * are the app's: each is born with the prototype Express then sets, which finds it already set and changes
 * nothing (setting an object's prototype to the one it has is no change), and every request has the same
 * shape as the one before. Everything else stays as Express made it: the prototypes hold the same methods, in
 * the same chain (`IncomingMessage` and `ServerResponse` still answer `instanceof`), and `app.listen` takes the
 * same arguments and calls its callback as Express 5's does. A server made another way (`http.createServer(app)`)
 * works as before, with a shape per request.
 */
import { createServer, IncomingMessage, ServerResponse, type Server, type ServerOptions } from 'node:http';
import type { Express } from 'express';

/** Makes `prototype` the app's prototype in Express's place: the same chain, the same own properties. */
function adopt(prototype: object, expresses: object): void {
  Object.setPrototypeOf(prototype, Object.getPrototypeOf(expresses) as object);
  const { constructor: _constructor, ...own } = Object.getOwnPropertyDescriptors(expresses);
  Object.defineProperties(prototype, own);
}

export function withStableShapes(app: Express): void {
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse<AppRequest> {}
  adopt(AppRequest.prototype, app.request);
  adopt(AppResponse.prototype, app.response);
  app.request = AppRequest.prototype as unknown as Express['request'];
  app.response = AppResponse.prototype as unknown as Express['response'];
  // As Express 5's `listen`: the last argument, when a function, is called once, when listening or on an error.
  app.listen = function listen(this: Express, ...args: unknown[]): Server {
    // Server options the app was given (timeouts: see http/connections.ts), with the request and response classes.
    const options = (this.locals.serverOptions ?? {}) as ServerOptions;
    const server = createServer<typeof AppRequest, typeof AppResponse>({ IncomingMessage: AppRequest, ServerResponse: AppResponse, ...options }, this);
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      let called = false;
      const done = (...results: unknown[]) => {
        if (called) return;
        called = true;
        (last as (...values: unknown[]) => void)(...results);
      };
      args[args.length - 1] = done;
      server.once('error', done);
    }
    return server.listen(...(args as Parameters<Server['listen']>));
  } as Express['listen'];
}
