/**
 * Which webhook targets may be saved (issue 15, finding 4 and the smaller ones of finding 8): public addresses
 * only, in every notation of IPv4 and IPv6, host names resolved when saved, no credentials, the scheme in any
 * case; and how secrets are shown after creation.
 */
import { describe, expect, test } from '@jest/globals';
import { DomainError } from '../../server/domain/errors.js';
import type { HostResolver } from '../../server/domain/management/webhook-targets.js';
import { maskSecret, presentWebhook, vetTarget, type WebhookRules } from '../../server/domain/management/webhooks.js';
import { systemResolver } from '../../server/webhooks/delivery.js';

const strict: WebhookRules = { allowPlainHttp: false, allowPrivateTargets: false, resolve: systemResolver };

/** A resolver that answers from a table, as a DNS server under test would. */
function resolverOf(table: Record<string, string[]>): HostResolver {
  return async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

async function refusal(url: string, rules: WebhookRules = strict): Promise<DomainError> {
  const error = await vetTarget(url, rules).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof DomainError)) throw new Error(`${url} was accepted`);
  return error;
}

describe('webhook targets when saved', () => {
  test.each([
    ['loopback', 'https://127.0.0.1/in'],
    ['loopback as one decimal number', 'https://2130706433/in'],
    ['loopback in hexadecimal', 'https://0x7f.0.0.1/in'],
    ['loopback in octal', 'https://0177.0.0.1/in'],
    ['loopback shortened', 'https://127.1/in'],
    ['loopback elsewhere in 127/8', 'https://127.254.0.9:8443/in'],
    ['IPv6 loopback', 'https://[::1]/in'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/in'],
    ['IPv4-mapped IPv6 loopback in hex', 'https://[0:0:0:0:0:ffff:7f00:1]/in'],
    ['the cloud metadata address (link-local)', 'https://169.254.169.254/latest/meta-data/'],
    ['IPv4-mapped IPv6 metadata address', 'https://[::ffff:169.254.169.254]/'],
    ['private 10/8', 'https://10.1.2.3/in'],
    ['private 172.16/12', 'https://172.16.0.1/in'],
    ['private 192.168/16', 'https://192.168.1.1/in'],
    ['carrier-grade NAT', 'https://100.64.0.1/in'],
    ['unspecified', 'https://0.0.0.0/in'],
    ['unspecified as 0', 'https://0/in'],
    ['IPv6 unspecified', 'https://[::]/in'],
    ['multicast', 'https://224.0.0.1/in'],
    ['broadcast', 'https://255.255.255.255/in'],
    ['documentation (reserved)', 'https://192.0.2.10/in'],
    ['IPv6 link-local', 'https://[fe80::1]/in'],
    ['IPv6 unique local', 'https://[fd12:3456::1]/in'],
    ['IPv6 multicast', 'https://[ff02::1]/in'],
    ['NAT64 of loopback', 'https://[64:ff9b::7f00:1]/in'],
    ['6to4 of loopback', 'https://[2002:7f00:1::1]/in'],
    ['IPv6 documentation', 'https://[2001:db8::1]/in'],
  ])('when the target is %s (%s), then it is refused as invalid_target_url', async (_, url) => {
    const error = await refusal(url);
    expect(error).toMatchObject({ kind: 'invalid', key: 'invalid_target_url' });
    expect(error.details).toMatch(/webhooks may only target public addresses/);
  });

  test('when a host name resolves to a loopback address (localhost), then it is refused', async () => {
    expect((await refusal('https://localhost/in')).details).toMatch(/localhost resolves to a loopback address/);
    expect((await refusal('https://LOCALHOST:8443/in')).key).toBe('invalid_target_url');
  });

  test('when a host name resolves to several addresses and one is private, then it is refused', async () => {
    const resolve = resolverOf({ 'mixed.example.test': ['93.184.216.34', '10.0.0.5'], 'mapped.example.test': ['::ffff:10.0.0.5'] });
    for (const url of ['https://mixed.example.test/in', 'https://mapped.example.test/in']) {
      expect((await refusal(url, { ...strict, resolve })).details).toMatch(/resolves to a private address/);
    }
  });

  test('when a host name resolves to public addresses only, or does not resolve yet, then it is taken (deliveries check again)', async () => {
    const resolve = resolverOf({ 'hooks.example.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] });
    await expect(vetTarget('https://hooks.example.test/in', { ...strict, resolve })).resolves.toBe('https://hooks.example.test/in');
    await expect(vetTarget('https://unknown.example.test/in', { ...strict, resolve })).resolves.toBe('https://unknown.example.test/in');
    await expect(vetTarget('https://93.184.216.34/in', strict)).resolves.toBe('https://93.184.216.34/in');
    await expect(vetTarget('https://[2606:4700::1111]/in', strict)).resolves.toBe('https://[2606:4700::1111]/in');
  });

  test('when a lookup hangs, then saving waits a bounded time and takes the name', async () => {
    const hanging: HostResolver = () => new Promise(() => undefined);
    const started = performance.now();
    await expect(vetTarget('https://slow.example.test/in', { ...strict, resolve: hanging, lookupTimeoutMs: 200 })).resolves.toBe('https://slow.example.test/in');
    console.log(`a hanging lookup held the save for ${Math.round(performance.now() - started)} ms`);
  });

  test('when the URL carries a user name or password, then it is refused', async () => {
    for (const url of ['https://user:pass@hooks.example.com/in', 'https://user@hooks.example.com/in', 'https://:pass@hooks.example.com/in']) {
      expect((await refusal(url)).details).toBe('target_url must not carry a user name or password');
    }
  });

  test('when the scheme is upper or mixed case, then it is taken as the same scheme', async () => {
    await expect(vetTarget('HTTPS://93.184.216.34/in', strict)).resolves.toBe('HTTPS://93.184.216.34/in');
    await expect(vetTarget('HtTpS://93.184.216.34/in', strict)).resolves.toBeDefined();
    expect((await refusal('HTTP://93.184.216.34/in')).details).toBe('target_url must be an https URL, got http');
    await expect(vetTarget('HTTP://93.184.216.34/in', { ...strict, allowPlainHttp: true })).resolves.toBeDefined();
    expect((await refusal('FTP://93.184.216.34/in', { ...strict, allowPlainHttp: true })).details).toBe('target_url must be an https or http URL, got ftp');
  });

  test('when private targets are allowed (local testing), then loopback is taken in any notation', async () => {
    const local = { ...strict, allowPlainHttp: true, allowPrivateTargets: true };
    for (const url of ['http://127.0.0.1:8080/in', 'HTTP://localhost:8080/in', 'https://[::1]/in', 'https://2130706433/in']) {
      await expect(vetTarget(url, local)).resolves.toBe(url);
    }
    // Credentials stay refused.
    expect((await refusal('http://a:b@127.0.0.1/in', local)).key).toBe('invalid_target_url');
  });
});

describe('webhook secrets as shown', () => {
  const webhook = {
    id: 'wh_1',
    target_url: 'https://hooks.example.com/in',
    events: ['customer.created' as const],
    active: true,
    secret: 'whsec_0123456789abcdefWXYZ',
    created_at: '2026-11-21T10:00:00.000Z',
    updated_at: null,
    object: 'webhook' as const,
  };

  test('when a webhook is shown after its creation, then its secret is a fixed prefix and its last four characters', () => {
    expect(maskSecret(webhook.secret)).toBe('whsec_************WXYZ');
    expect(presentWebhook(webhook)).toEqual({ ...webhook, secret: 'whsec_************WXYZ' });
    expect(presentWebhook(webhook, { revealSecret: true })).toEqual(webhook);
    // A secret of another form is masked the same way, revealing no more of it.
    expect(maskSecret('my-own-secret-value-1234')).toBe('whsec_************1234');
  });
});
