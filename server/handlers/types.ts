/**
 * Handler types derived from the generated `operations`. `Handlers` has one key per operationId in the
 * contract, so an operation without a handler, or a handler that returns a body of the wrong shape,
 * does not compile.
 */
import type { Readable } from 'node:stream';
import type { operations } from '../../generated/openapi.js';
import type { AssetSigner } from '../assets.js';
import type { Clock } from '../domain/clock.js';
import type { ExportFiles } from '../exports/files.js';
import type { JobLeases } from '../job-leases.js';
import type { WebhookRules } from '../domain/management/webhooks.js';
import type { Jobs } from '../jobs.js';
import type { TokenRegistry } from '../oauth.js';
import type { DomainStore } from '../domain/schema.js';

/** Operations of the top-level `webhooks`: requests this server sends to receivers, not ones it serves. */
type ReceiverOperationId = 'receive-event' | `events-${string}`;
export type OperationId = Exclude<keyof operations, ReceiverOperationId>;
type Operation<K extends OperationId> = operations[K];

type Part<T, P extends string> = T extends { [X in P]?: infer V } ? ([V] extends [undefined] ? {} : NonNullable<V>) : {};
export type PathParams<K extends OperationId> = Part<Operation<K>['parameters'], 'path'>;
export type QueryParams<K extends OperationId> = Part<Operation<K>['parameters'], 'query'>;
/** A file part of a multipart request, as the upload middleware leaves it in the body (server/http/uploads.ts). */
export interface UploadedFile {
  buffer: Buffer;
  originalname: string;
  mimetype: string;
  size: number;
}
/** A multipart body: its text fields as they are, its binary parts as uploaded files. */
type Multipart<B> = { [K in keyof B]: B[K] extends string | undefined ? B[K] | UploadedFile : B[K] };
/** The body of a JSON, form-encoded or multipart request. */
type ContentOf<C> = C extends { 'application/json': infer B }
  ? B
  : C extends { 'application/x-www-form-urlencoded': infer B }
    ? B
    : C extends { 'multipart/form-data': infer B }
      ? Multipart<B>
      : undefined;
export type RequestBody<K extends OperationId> =
  Operation<K> extends { requestBody: { content: infer C } }
    ? ContentOf<C>
    : Operation<K> extends { requestBody?: { content: infer C } }
      ? ContentOf<C> | undefined
      : undefined;

type Responses<K extends OperationId> = Operation<K>['responses'];
type SuccessStatus = 200 | 201 | 202 | 204;
type BodyOf<R> = R extends { content: { 'application/json': infer B } }
  ? B
  : R extends { content: { 'image/png': unknown } }
    ? Buffer
    : R extends { content: { 'text/csv': unknown } }
      ? FileBody
      : undefined;
type SuccessStatusOf<K extends OperationId> = keyof Responses<K> & SuccessStatus;

export type HandlerResult<K extends OperationId> = {
  [S in SuccessStatusOf<K>]: BodyOf<Responses<K>[S]> extends undefined
    ? { status: S; body?: undefined }
    : { status: S; body: BodyOf<Responses<K>[S]> };
}[SuccessStatusOf<K>];

/** A file streamed to the client (an export's CSV), with its media type and the name it is saved under. */
export class FileBody {
  constructor(
    readonly stream: Readable,
    readonly type: string,
    readonly filename: string,
  ) {}
}

/** Who is calling, established by authentication. */
export interface RequestContext {
  requestId: string;
  projectId: string;
  apiKey: { name: string; appId: string };
  /** Whether the request only asks to read (a GET): its unit of work on the project begins as a read (`readFirst`). */
  reads?: boolean;
  /** The `X-Voucherify-Channel` header, by which the published SDKs name themselves (`Node.js-SDK`, say). */
  channel?: string;
}

/** What the server gives every handler besides the request. */
export interface Services {
  tokens: TokenRegistry;
  store: DomainStore;
  clock: Clock;
  /**
   * Whether the test-clock operations answer and a project's frozen test clock is its time (an extension,
   * off unless the server is started with it on).
   */
  testClocks?: boolean;
  jobs: Jobs;
  /** Where clients reach the server, for absolute URLs in responses (configured, never the request's `Host`). */
  publicBaseUrl: () => string;
  assets: AssetSigner;
  webhookRules: WebhookRules;
  /** Where export files are written and read. */
  exportFiles: ExportFiles;
  /** Runs background jobs under a lease, so another instance takes them over if this one dies. */
  leases: JobLeases;
  /** API keys changed (a project deleted): authentication must look them up again. */
  keysChanged?: () => void;
}

export interface HandlerInput<K extends OperationId> {
  path: PathParams<K>;
  query: QueryParams<K>;
  body: RequestBody<K>;
  context: RequestContext;
  services: Services;
}

export type Handler<K extends OperationId> = (input: HandlerInput<K>) => Promise<HandlerResult<K>>;
export type Handlers = { [K in OperationId]: Handler<K> };
export type HandlersOf<K extends OperationId> = { [P in K]: Handler<P> };
