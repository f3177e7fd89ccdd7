/**
 * What the export, import, bulk job and transaction scenarios share: waiting for background work (async actions,
 * exports) by polling, as any client would, uploading a CSV file as `multipart/form-data`, downloading an export's
 * file, and reading CSV with a real parser.
 */
import { expect } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import type { ApiClient } from '../../client/index.js';
import { recordingFetch, type Target } from './target.js';

/** Polls until `done` says the value is finished, for at most `timeoutMs`. */
async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The async action once it has ended (DONE or FAILED). */
export async function finishedAction(client: ApiClient, asyncActionId: string) {
  const action = await poll(
    async () => (await client.GET('/v1/async-actions/{asyncActionId}', { params: { path: { asyncActionId } } })).data!,
    (value) => value.status === 'DONE' || value.status === 'FAILED',
  );
  expect(['DONE', 'FAILED']).toContain(action.status);
  return action;
}

/** Deletes a campaign as the public API does it, accepted (202) and carried out as an async action; the action once ended. */
export async function deletedCampaign(client: ApiClient, campaignId: string, force?: boolean) {
  const accepted = await client.DELETE('/v1/campaigns/{campaignId}', { params: { path: { campaignId }, ...(force !== undefined && { query: { force } }) } });
  expect(accepted.response.status).toBe(202);
  return finishedAction(client, accepted.data!.async_action_id!);
}

/** The export once it has ended (DONE or ERROR). */
export async function finishedExport(client: ApiClient, exportId: string) {
  const found = await poll(
    async () => (await client.GET('/v1/exports/{exportId}', { params: { path: { exportId } } })).data!,
    (value) => value.status === 'DONE' || value.status === 'ERROR',
  );
  expect(['DONE', 'ERROR']).toContain(found.status);
  return found;
}

/** Sends a CSV file as `multipart/form-data`, in the part named `file`, with any other text fields. */
export async function upload(target: Target, path: string, csv: string, fields: Record<string, string> = {}, credentials = target.credentials) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'import.csv');
  const response = await recordingFetch(`${target.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'X-App-Id': credentials.appId, 'X-App-Token': credentials.appToken },
    body: form,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body };
}

/**
 * Fetches an export's file from its `result.url`, with the key's credentials. The in-process server is told no
 * public address (its URLs name the default one), so there the URL's path and query are fetched from the target;
 * another server's URL is fetched as it is (the public API's names a download host of its own).
 */
export async function download(target: Target, url: string, credentials = target.credentials) {
  const { pathname, search } = new URL(url);
  const response = await recordingFetch(target.inProcess ? `${target.baseUrl}${pathname}${search}` : url, { headers: { 'X-App-Id': credentials.appId, 'X-App-Token': credentials.appToken } });
  const text = await response.text();
  return { status: response.status, type: response.headers.get('content-type'), disposition: response.headers.get('content-disposition'), text };
}

/** A CSV file's rows, the header included, as a real parser reads them. */
export function csvRows(text: string): string[][] {
  return parse(text, { relax_column_count: false }) as string[][];
}

/** A CSV file's records by their header's columns. */
export function csvRecords(text: string): Record<string, string>[] {
  return parse(text, { columns: true }) as Record<string, string>[];
}
