/**
 * The kit's `compare`, without running the suite: two runs' recorded exchanges are paired by scenario and
 * operation, values that differ by nature (generated IDs and codes, timestamps, each server's own address,
 * measured durations) are normalised, and every other difference in status and body is reported, one line each.
 */
import { describe, expect, test } from '@jest/globals';
import { compareRuns, formatDifferences, type Exchange } from '../../bin/kit-compare.js';
import type { JestResults } from '../../bin/kit-report.js';

const ROOT = '/kit';
const FILE = '/kit/tests/contract/vouchers.test.ts';
const TEST = 'vouchers when one is made, then it is read back';
const A = 'http://127.0.0.1:4001';
const B = 'http://127.0.0.1:4002';

type Call = { method?: string; path: string; operationId?: string; status?: number; body?: unknown; sent?: number; at?: number; test?: string };

/** A run's records: the calls in the order sent, each answered `at` ms after the run's start. */
function run(baseUrl: string, start: number, calls: Call[]): Exchange[] {
  return calls.map((call, seq) => ({
    kind: 'exchange',
    file: FILE,
    test: call.test ?? TEST,
    method: call.method ?? 'GET',
    url: `${baseUrl}${call.path}`,
    status: call.status ?? 200,
    ...(call.operationId !== undefined && { operationId: call.operationId }),
    violations: [],
    seq,
    ...(call.sent !== undefined && { sent: start + call.sent }),
    at: start + (call.at ?? seq),
    body: call.body === undefined ? '' : JSON.stringify(call.body),
  }));
}

const passed = (...tests: string[]): JestResults => ({
  numPassedTests: tests.length,
  numFailedTests: 0,
  numPendingTests: 0,
  numRuntimeErrorTestSuites: 0,
  testResults: [{ name: FILE, status: 'passed', message: '', assertionResults: tests.map((title) => ({ ancestorTitles: [], title, fullName: title, status: 'passed', failureMessages: [] })) }],
});

function compare(a: Call[], b: Call[], results = [passed(TEST), passed(TEST)] as const) {
  // B's run starts an hour after A's, as when the two servers are compared at different times.
  return compareRuns({ a: { records: run(A, Date.parse('2026-01-01T10:00:00Z'), a), results: results[0], baseUrl: A }, b: { records: run(B, Date.parse('2026-01-01T11:00:00Z'), b), results: results[1], baseUrl: B }, rootDir: ROOT });
}

/** One side's voucher: its own ID, code, timestamps and links. */
function voucher(base: string, id: string, code: string, hour: number, extra: Record<string, unknown> = {}) {
  return {
    id,
    code,
    object: 'voucher',
    campaign_id: null,
    created_at: `2026-01-01T${hour}:00:00.120Z`,
    expiration_date: `2026-01-31T${hour}:00:00.000Z`,
    start_date: '2020-01-01T00:00:00.000Z',
    redemption: { url: `/v1/vouchers/${code}/redemption` },
    assets: { qr: { url: `${base.replace('127.0.0.1', 'localhost')}/assets/qr/${code}-qr` } },
    ...extra,
  };
}

describe('compare: two runs of the same scenarios', () => {
  test('when the servers differ only in generated IDs, codes, timestamps and their own address, then there is no difference', () => {
    const result = compare(
      [
        { method: 'POST', path: '/v1/vouchers', operationId: 'create-voucher', body: voucher(A, 'v_0a9f9aeddb019a42db', 'Xk3Pq9Lm', 10) },
        { path: '/v1/vouchers/Xk3Pq9Lm', operationId: 'get-voucher', body: voucher(A, 'v_0a9f9aeddb019a42db', 'Xk3Pq9Lm', 10) },
        { path: '/v1/async-actions', operationId: 'list-async-actions', body: { data: [{ id: 'aa_11aa22bb33cc44dd55', processing_time: 3 }] } },
        { path: '/v1/vouchers', operationId: 'list-vouchers', body: { codes: ['C-HNBGD', 'C-7QX2A'] } },
      ],
      [
        { method: 'POST', path: '/v1/vouchers', operationId: 'create-voucher', body: voucher(B, 'v_77e6d5c4b3a2918070', 'bT7wQzR2', 11) },
        { path: '/v1/vouchers/bT7wQzR2', operationId: 'get-voucher', body: voucher(B, 'v_77e6d5c4b3a2918070', 'bT7wQzR2', 11) },
        { path: '/v1/async-actions', operationId: 'list-async-actions', body: { data: [{ id: 'aa_99ff88ee77dd66cc55', processing_time: 41 }] } },
        { path: '/v1/vouchers', operationId: 'list-vouchers', body: { codes: ['C-FY7ZF', 'C-PMULW'] } },
      ],
    );
    expect(result).toEqual({ scenarios: { compared: 1, onlyA: 0, onlyB: 0 }, exchanges: { compared: 4 }, differences: [] });
  });

  test('when B answers another status, another value, or names another object than A, then each is one difference', () => {
    const result = compare(
      [
        { method: 'POST', path: '/v1/vouchers', operationId: 'create-voucher', body: voucher(A, 'v_0a9f9aeddb019a42db', 'Xk3Pq9Lm', 10) },
        { method: 'POST', path: '/v1/vouchers', operationId: 'create-voucher', body: voucher(A, 'v_1111111111aaaaaaaa', 'Yy4Pq9Lm', 10) },
        { path: '/v1/vouchers', operationId: 'list-vouchers', body: { vouchers: [{ id: 'v_0a9f9aeddb019a42db' }], total: 2 } },
        { method: 'DELETE', path: '/v1/vouchers/Xk3Pq9Lm', operationId: 'delete-voucher', status: 204 },
      ],
      [
        { method: 'POST', path: '/v1/vouchers', operationId: 'create-voucher', body: voucher(B, 'v_77e6d5c4b3a2918070', 'bT7wQzR2', 11, { active: false }) },
        { method: 'POST', path: '/v1/vouchers', operationId: 'create-voucher', body: voucher(B, 'v_2222222222bbbbbbbb', 'cU8wQzR2', 11) },
        // The list names B's second voucher where A's names its first: another object, though both are IDs.
        { path: '/v1/vouchers', operationId: 'list-vouchers', body: { vouchers: [{ id: 'v_2222222222bbbbbbbb' }], total: 1 } },
        { method: 'DELETE', path: '/v1/vouchers/bT7wQzR2', operationId: 'delete-voucher', status: 404, body: { code: 404, key: 'not_found' } },
      ],
    );
    expect(result.differences.map(({ operation, path, a, b }) => ({ operation, path, a, b }))).toEqual([
      { operation: 'create-voucher', path: '$.active', a: '(absent)', b: false },
      { operation: 'list-vouchers', path: '$.total', a: 2, b: 1 },
      { operation: 'list-vouchers', path: '$.vouchers[0].id', a: 'v_0a9f9aeddb019a42db', b: 'v_2222222222bbbbbbbb' },
      { operation: 'delete-voucher', path: 'status', a: 204, b: 404 },
      { operation: 'delete-voucher', path: '$', a: '(absent)', b: { code: 404, key: 'not_found' } },
    ]);
    expect(formatDifferences(result.differences).split('\n')).toEqual([
      'create-voucher  $.active  A: (absent)  B: false',
      'list-vouchers  $.total  A: 2  B: 1',
      'list-vouchers  $.vouchers[0].id  A: "v_0a9f9aeddb019a42db"  B: "v_2222222222bbbbbbbb"',
      'delete-voucher  status  A: 204  B: 404',
      'delete-voucher  $  A: (absent)  B: {"code":404,"key":"not_found"}',
    ]);
  });

  test('when a timestamp is further from its run’s start on one side, or an enumeration differs, then it is a difference', () => {
    const result = compare(
      [{ path: '/v1/vouchers/V1', operationId: 'get-voucher', body: { expiration_date: '2026-01-31T10:00:00.000Z', status: 'ACTIVE' } }],
      [{ path: '/v1/vouchers/V1', operationId: 'get-voucher', body: { expiration_date: '2026-01-30T11:00:00.000Z', status: 'PAUSED' } }],
    );
    expect(result.differences.map((difference) => difference.path)).toEqual(['$.expiration_date', '$.status']);
    // Made before the scenario on both sides, by earlier scenarios that took each side its own time: no difference.
    const earlier = compare(
      [{ path: '/v1/categories', operationId: 'list-categories', body: { data: [{ created_at: '2026-01-01T09:10:00.000Z' }] } }],
      [{ path: '/v1/categories', operationId: 'list-categories', body: { data: [{ created_at: '2026-01-01T09:40:00.000Z' }] } }],
    );
    expect(earlier.differences).toEqual([]);
  });

  test('when one side polls more often, answers in another order or keys an object by its own generated names, then the scenario still pairs up', () => {
    const job = (status: string, id: string) => ({ path: `/v1/async-actions/${id}`, operationId: 'get-async-action', body: { id, status } });
    const result = compare(
      [job('IN_PROGRESS', 'aa_0000000000000000a1'), job('IN_PROGRESS', 'aa_0000000000000000a1'), job('DONE', 'aa_0000000000000000a1'), { path: '/v1/customers/c', operationId: 'get-customer', body: { loyalty: { 'Club-0a1b2c3d4e': { points: 5 }, 'Club-5f6a7b8c9d': { points: 7 } } } }],
      [job('DONE', 'aa_0000000000000000b2'), { path: '/v1/customers/c', operationId: 'get-customer', body: { loyalty: { 'Club-aa11bb22cc': { points: 5 }, 'Club-dd33ee44ff': { points: 7 } } } }],
    );
    expect(result.differences).toEqual([]);
    expect(result.exchanges.compared).toBe(2);
  });

  test('when a list is sorted by generated IDs, then its items are matched whatever their order; otherwise, order counts', () => {
    const items = (ids: string[], names: string[]) => ids.map((id, index) => ({ id, name: names[index] }));
    const made = (id: string, name: string) => ({ method: 'POST', path: '/v1/products', operationId: 'create-product', body: { id, name } });
    const result = compare(
      [made('prod_1000000000000000aa', 'one'), made('prod_2000000000000000aa', 'two'), { path: '/v1/products', operationId: 'list-products', body: { data: items(['prod_1000000000000000aa', 'prod_2000000000000000aa'], ['one', 'two']), names: ['one', 'two'] } }],
      // B's IDs sort the other way round, so its list (by ID) comes in the other order; a list of names must not.
      [made('prod_9000000000000000bb', 'one'), made('prod_3000000000000000bb', 'two'), { path: '/v1/products', operationId: 'list-products', body: { data: items(['prod_3000000000000000bb', 'prod_9000000000000000bb'], ['two', 'one']), names: ['two', 'one'] } }],
    );
    expect(result.differences.map(({ path, a, b }) => ({ path, a, b }))).toEqual([
      { path: '$.names[0]', a: 'one', b: 'two' },
      { path: '$.names[1]', a: 'two', b: 'one' },
    ]);
  });

  test('when a page of a list in ID order is only part of it on both sides, then which items fill it is not compared, but their fields and the page are', () => {
    const entry = (id: string, name: string, extra: Record<string, unknown> = {}) => ({ id, resource_name: name, ...extra });
    const page = (items: unknown[], total: number) => [{ path: '/v1/trash-bin?limit=2', operationId: 'list-bin-entries', body: { object: 'list', data_ref: 'data', data: items, total } }];
    const a = [entry('bin_1000000000000000aa', 'C-MEUQ4'), entry('bin_2000000000000000aa', 'PAGE-7FD5567434')];
    const b = [entry('bin_3000000000000000bb', 'Spring'), entry('bin_4000000000000000bb', 'C-XYZW2')];
    expect(compare(page(a, 7), page(b, 7)).differences).toEqual([]);
    // Another total, or an item with a field the other side's lacks, is still a difference.
    expect(compare(page(a, 7), page(b, 8)).differences.map((difference) => difference.path)).toEqual(['$.total']);
    // An optional field some items carry on both sides is no difference, wherever it falls on each page.
    const described = (items: Array<{ id: string; resource_name: string }>, at: number) => items.map((item, index) => (index === at ? { ...item, description: 'Fifteen off' } : item));
    expect(compare(page(described(a, 0), 7), page(described(b, 1), 7)).differences).toEqual([]);
    // Or on none of the other side's short page: it is the field every item of one side carries that counts.
    expect(compare(page(described(a, 0), 7), page(b, 7)).differences).toEqual([]);
    const extra = [entry('bin_3000000000000000bb', 'Spring', { internal: 1 }), entry('bin_4000000000000000bb', 'C-XYZW2', { internal: 1 })];
    expect(compare(page(a, 7), page(extra, 7)).differences.map(({ path, a, b }) => ({ path, a, b }))).toEqual([
      { path: '$.data[0].internal', a: '(absent)', b: 1 },
      { path: '$.data[1].internal', a: '(absent)', b: 1 },
    ]);
    // The whole list (total = its length) must hold the same items.
    expect(compare(page(a, 2), page(b, 2)).differences.length).toBeGreaterThan(0);
    // The same items in another ID order: the cursor to the next page names each side's own last item.
    const more = (items: Array<{ id: string }>) => [{ path: '/v1/trash-bin?limit=2', operationId: 'list-bin-entries', body: { object: 'list', data_ref: 'data', data: items, has_more: true, more_starting_after: items.at(-1)!.id } }];
    const [first, second] = [entry('bin_1000000000000000aa', 'C-MEUQ4'), entry('bin_2000000000000000aa', 'Spring')];
    const [secondB, firstB] = [entry('bin_3000000000000000bb', 'Spring'), entry('bin_4000000000000000bb', 'C-MEUQ4')];
    expect(compare(more([first, second]), more([secondB, firstB])).differences).toEqual([]);
    // A cursor that is not its page's last item is compared as any value.
    const off = more([secondB, firstB]);
    (off[0]!.body as Record<string, unknown>).more_starting_after = 'bin_7000000000000000bb';
    expect(compare(more([first, second]), off).differences.map((difference) => difference.path)).toEqual(['$.more_starting_after']);
    // A page in order of names with a random part is drawn as one in ID order.
    const named = (names: string[]) => [{ path: '/v1/templates/campaigns?limit=2', operationId: 'list-campaign-templates', body: { object: 'list', data: names.map((name) => ({ name })), has_more: true } }];
    expect(compare(named(['Template-0a1b2c3d4e', 'Template-1f2e3d4c5b']), named(['Spring template-0c0c0c0c0c', 'Template-2b2b2b2b2b'])).differences).toEqual([]);
  });

  test('when a page is asked for after a cursor the client made up, then which items follow it, how many and whether more do are not compared', () => {
    const entry = (id: string, name: string, extra: Record<string, unknown> = {}) => ({ id, resource_name: name, ...extra });
    const page = (cursor: string, items: Array<{ id: string }>, hasMore: boolean) => [
      { path: `/v1/trash-bin?limit=3&starting_after_id=${cursor}`, operationId: 'list-bin-entries', body: { object: 'list', data_ref: 'data', data: items, has_more: hasMore, ...(hasMore && { more_starting_after: items.at(-1)!.id }) } },
    ];
    const a = [entry('bin_5000000000000000aa', 'C-MEUQ4'), entry('bin_6000000000000000aa', 'PAGE-7FD5567434')];
    const b = [entry('bin_5100000000000000bb', 'Spring'), entry('bin_5200000000000000bb', 'C-XYZW2'), entry('bin_9000000000000000bb', 'Autumn')];
    // "bin_5" splits each side's IDs by chance: two follow it on A, three (and more) on B.
    expect(compare(page('bin_5', a, false), page('bin_5', b, true)).differences).toEqual([]);
    // A field only one side's item carries still shows, with its value.
    const extra = [entry('bin_5100000000000000bb', 'Spring', { internal: 1 }), entry('bin_5200000000000000bb', 'C-XYZW2', { internal: 1 })];
    expect(compare(page('bin_5', a, false), page('bin_5', extra, false)).differences.map(({ path, a, b }) => ({ path, a, b }))).toEqual([
      { path: '$.data[0].internal', a: '(absent)', b: 1 },
      { path: '$.data[1].internal', a: '(absent)', b: 1 },
    ]);
    // A cursor read from each side's answer (its own ID on each side) is no made-up cursor: the page must match.
    expect(compare(page('bin_4000000000000000aa', a, false), page('bin_4000000000000000bb', b, true)).differences.length).toBeGreaterThan(0);
  });

  test('when calls sent at once are answered differently on each side, then they meet their equals; sent one after another, they do not', () => {
    const redeem = (status: number, sent: number, at: number) => ({ method: 'POST', path: '/v1/redemptions', operationId: 'redeem-stacked-discounts', status, body: { result: status === 200 ? 'SUCCESS' : 'FAILURE' }, sent, at });
    // Both sent before either was answered: which wins is the server's race.
    expect(compare([redeem(200, 0, 5), redeem(400, 1, 6)], [redeem(400, 0, 5), redeem(200, 1, 6)]).differences).toEqual([]);
    // The second sent after the first was answered: its answer must be the same on both sides.
    expect(compare([redeem(200, 0, 5), redeem(400, 6, 9)], [redeem(400, 0, 5), redeem(200, 6, 9)]).differences.map((difference) => difference.path)).toEqual(['status', '$.result', 'status', '$.result']);
  });

  test('when a list is walked page by page after each cursor, then its pages are compared as one list; a changed item or page length is still a difference', () => {
    // Three entries in ID order, two a page: each side's random IDs put other entries on its first page.
    const entry = (id: string, points: number) => ({ id, points, object: 'pending_points' });
    const page = (cursor: string | undefined, items: ReturnType<typeof entry>[], more: boolean) => ({
      path: `/v1/loyalties/members/M1/pending-points?limit=2${cursor ? `&starting_after_id=${cursor}` : ''}`,
      operationId: 'list-member-pending-points',
      body: { object: 'list', data: items, has_more: more, ...(more && { more_starting_after: items.at(-1)!.id }) },
    });
    const earned = (id: string, points: number) => ({ method: 'POST', path: '/v1/orders', operationId: 'create-order', body: { id, points } });
    const a = [earned('lopp_1000000000aa', 10), earned('lopp_2000000000aa', 20), earned('lopp_3000000000aa', 30)];
    const b = [earned('lopp_9000000000bb', 10), earned('lopp_1000000000bb', 20), earned('lopp_5000000000bb', 30)];
    const walkA = [page(undefined, [entry('lopp_1000000000aa', 10), entry('lopp_2000000000aa', 20)], true), page('lopp_2000000000aa', [entry('lopp_3000000000aa', 30)], false)];
    const walkB = (last: number) => [page(undefined, [entry('lopp_1000000000bb', 20), entry('lopp_5000000000bb', 30)], true), page('lopp_5000000000bb', [entry('lopp_9000000000bb', last)], false)];
    expect(compare([...a, ...walkA], [...b, ...walkB(10)]).differences).toEqual([]);
    // The entry made first lists 11 points on B, though it was made with 10: a difference, wherever its page put it.
    const changed = compare([...a, ...walkA], [...b, ...walkB(11)]).differences;
    expect(changed.filter((difference) => difference.b === 11).map((difference) => difference.path)).toEqual([expect.stringMatching(/^\$\.data\[\d\]\.points$/)]);
    // Pages of other lengths are a difference of the page, even when the walk holds the same entries.
    const unevenB = [page(undefined, [entry('lopp_1000000000bb', 20)], true), page('lopp_1000000000bb', [entry('lopp_5000000000bb', 30), entry('lopp_9000000000bb', 10)], false)];
    expect(compare([...a, ...walkA], [...b, ...unevenB]).differences.map((difference) => difference.path)).toEqual(['$.data']);
  });

  test('when a secret is masked to its last characters, a token’s expiry is in seconds since 1970, or a code (in JSON or an export’s CSV) is made of letters of one case only, then each is a generated value', () => {
    const hook = (secret: string, expires: number, code: string) => [
      { path: '/v1/webhooks/wh_1', operationId: 'get-webhook', body: { secret, token_expires_at: expires } },
      { path: `/v1/vouchers/${code}`, operationId: 'get-voucher', body: { code, redemption: { url: `/v1/vouchers/${code}/redemption` } } },
    ];
    // B's run starts an hour later: its expiry, an hour later too, is as far from its start.
    const a = hook('whsec_************3365', 1767265200, 'lvgwarye');
    expect(compare(a, hook('whsec_************0b5f', 1767268800, 'qpxmdtan')).differences).toEqual([]);
    // Another secret's tail where A shows the same one, an expiry two minutes longer, another code in the link: differences.
    const paths = (b: Call[]) => compare([...a, ...a], b).differences.map((difference) => difference.path);
    expect(paths([...hook('whsec_************0b5f', 1767268800, 'qpxmdtan'), ...hook('whsec_************77aa', 1767268920, 'qpxmdtan')])).toEqual(['$.secret', '$.token_expires_at']);
    expect(paths([...hook('whsec_************0b5f', 1767268800, 'qpxmdtan'), ...hook('whsec_************0b5f', 1767268800, 'zzxmdtan')])).toEqual(['$.code', '$.redemption.url']);
    // An export's CSV file: its code column holds codes, though no JSON answer named them; the other columns count.
    const csv = (codes: string[], value: number) => [{ path: '/v1/exports/exp_1/download', operationId: 'download-export', body: `code,value,metadata\n${codes.map((code) => `${code},${value},"{""a"":1}"`).join('\n')}` }];
    expect(compare(csv(['lvgwarye', 'ABCCABAB'], 700), csv(['qpxmdtan', 'BBACABCA'], 700)).differences).toEqual([]);
    expect(compare(csv(['lvgwarye', 'ABCCABAB'], 700), csv(['qpxmdtan', 'BBACABCA'], 701)).differences.map((difference) => difference.path)).toEqual(['$']);
    // A charset of punctuation: the codes differ between words, and a link holds each encoded.
    const punctuated = (code: string, value: number) => [
      { method: 'POST', path: '/v1/vouchers', operationId: 'generate-random-code', body: { code, value, publish: { url: `/v1/publications?voucher=${encodeURIComponent(code)}` } } },
      { path: '/v1/vouchers', operationId: 'list-vouchers', body: { vouchers: [{ code, redemption: { url: `/v1/vouchers/${encodeURIComponent(code)}/redemption` } }] } },
    ];
    expect(compare(punctuated('"c{7|ref', 1), punctuated('"c{7^ref', 1)).differences).toEqual([]);
    expect(compare(punctuated('"c{7|ref', 1), punctuated('"c{7^ref', 2)).differences.map((difference) => difference.path)).toEqual(['$.value']);
  });

  test('when a list is sorted by names with a random part, then its items are matched whatever their order; a download link’s random token may start like an ID', () => {
    const campaign = (name: string, type: string) => ({ name, campaign_type: type, object: 'campaign' });
    const list = (names: string[], types: string[], token: string) => ({
      path: '/v1/campaigns/qualification?order=campaign',
      operationId: 'examine-campaign-qualification',
      body: { data: names.map((name, index) => campaign(name, types[index]!)), url: `/v1/exports/exp_0a1b2c3d4e/download?token=${token}` },
    });
    const types = ['GIFT_VOUCHERS', 'DISCOUNT_COUPONS'];
    const result = compare([list(['Club-0a1b2c3d4e', 'Club-9f8e7d6c5b'], types, 'XLyqCEJRjLn8zcMv2ST1')], [list(['Club-11aa22bb33', 'Club-ee44dd55cc'], [...types].reverse(), 'd_MaDbdxrsFaVpW21K6t')]);
    expect(result.differences).toEqual([]);
    // A tracking ID keeps its prefix whatever its random part holds; an ID without the prefix is another value.
    const tracked = (id: string) => [{ path: '/v1/qualifications', operationId: 'check-eligibility', body: { tracking_id: id } }];
    expect(compare(tracked('track_fk6nbo2vt8r4'), tracked('track_CPQdcLje_8wi')).differences).toEqual([]);
    // Its random part may be lower-case letters and hyphens only.
    expect(compare(tracked('track_6Dls7wR7HAur'), tracked('track_ybud-ezhoflj')).differences).toEqual([]);
    expect(compare(tracked('track_fk6nbo2vt8r4'), tracked('fk6nbo2vt8r4xxxxx1')).differences.map((difference) => difference.path)).toEqual(['$.tracking_id']);
    // Names in the same order on both sides: the types must then come in the same order too.
    const same = compare([list(['Gold', 'Silver'], types, 'XLyqCEJRjLn8zcMv2ST1')], [list(['Gold', 'Silver'], [...types].reverse(), 'd_MaDbdxrsFaVpW21K6t')]);
    expect(same.differences.map((difference) => difference.path)).toEqual(['$.data[0].campaign_type', '$.data[1].campaign_type']);
  });

  test('when a scenario passed on one side only, or called an operation a different number of times, then that is reported too', () => {
    const other = 'vouchers when deleted, then gone';
    const result = compare(
      [{ path: '/v1/vouchers/V1', operationId: 'get-voucher', body: {} }, { path: '/v1/vouchers/V2', operationId: 'get-voucher', body: {} }],
      [{ path: '/v1/vouchers/V1', operationId: 'get-voucher', body: {} }],
      [passed(TEST, other), { ...passed(TEST), testResults: [{ ...passed(TEST).testResults[0]!, assertionResults: [...passed(TEST).testResults[0]!.assertionResults, { ancestorTitles: [], title: other, fullName: other, status: 'failed', failureMessages: ['x'] }] }] }],
    );
    expect(result.differences.map(({ scenario, operation, path, a, b }) => ({ scenario, operation, path, a, b }))).toEqual([
      { scenario: `tests/contract/vouchers.test.ts › ${other}`, operation: '(scenario)', path: 'outcome', a: 'passed', b: 'failed' },
      { scenario: `tests/contract/vouchers.test.ts › ${TEST}`, operation: 'get-voucher', path: 'calls', a: 2, b: 1 },
    ]);
  });
});
