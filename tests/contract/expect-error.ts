import { expect } from '@jest/globals';

/** Asserts the interface's error shape, with the given status and key. */
export function expectError(response: { status: number; body?: unknown }, status: number, key: string): Record<string, unknown> {
  const body = response.body as Record<string, unknown>;
  expect({ status: response.status, key: body?.key }).toEqual({ status, key });
  expect(body).toEqual(
    expect.objectContaining({
      code: status,
      key,
      message: expect.any(String),
      details: expect.any(String),
      request_id: expect.stringMatching(/.+/),
    }),
  );
  return body;
}

/** Adapts an openapi-fetch result to expectError. */
export function failed(result: { response: Response; error?: unknown }) {
  return { status: result.response.status, body: result.error };
}
