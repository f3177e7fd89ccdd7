/**
 * Which addresses a webhook may be sent to. A webhook target is a URL anyone holding the management key chooses,
 * and the server then connects to it: without a check, it would reach the loopback interface, the cloud's
 * metadata service or the private network on the caller's behalf. Only public unicast addresses pass; the
 * classification is ipaddr.js's, which knows the special-purpose registries of both families, so IPv4-mapped
 * IPv6, NAT64, 6to4 and Teredo forms of a private address are refused like the address itself.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address a connection to it could use. */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The range an address belongs to (`unicast` for a public one); every notation of an address gets the same. */
export function addressRange(address: string): string {
  // process() turns an IPv4-mapped IPv6 address into the IPv4 one, so `::ffff:127.0.0.1` is loopback.
  return ipaddr.process(address).range();
}

export function isPublicAddress(address: string): boolean {
  return ipaddr.isValid(address) && addressRange(address) === 'unicast';
}

/** The host of a URL as an IP address when it is one (brackets of IPv6 taken off), or undefined for a name. */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) ? host : undefined;
}

/** A hostname as a resolver takes it: IPv6 literals without their brackets. */
export function lookupName(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** The addresses that are not public, each with its range: empty when every one may be targeted. */
export function refusedAddresses(addresses: readonly ResolvedAddress[]): { address: string; range: string }[] {
  return addresses.flatMap(({ address }) => {
    if (!ipaddr.isValid(address)) return [{ address, range: 'invalid' }];
    const range = addressRange(address);
    return range === 'unicast' ? [] : [{ address, range }];
  });
}
