import * as ipaddr from 'ipaddr.js';

export type ParsedIp = { kind: 'ipv4' | 'ipv6'; normalized: string; publicUnicast: boolean };

/**
 * Parses a consumer IP as affiliates send it: the first address of a forwarded
 * list ("203.0.113.7, 10.0.0.1"), IPv4 as a decimal dotted quad (leading zeros
 * read as decimal, never octal), IPv6 in any valid text form; an IPv4-mapped
 * IPv6 address is read as its IPv4 address. Returns undefined when it is not an
 * IP address. `normalized` is the contract's normalization ("Normalization before
 * hashing", key ip); `publicUnicast` is false for every special-purpose range
 * (private, shared 100.64/10, loopback, link-local, multicast, documentation,
 * benchmarking, 6to4/Teredo and other reserved ranges: LEAD-FIELDS.md).
 */
export function parseIp(input: string): ParsedIp | undefined {
  const first = input.split(',')[0]?.trim() ?? '';
  if (first === '' || first.length > 64) return undefined;
  if (!first.includes(':')) return parseIpv4(first);
  if (first.includes('%')) return undefined; // zone ids name an interface, not a consumer
  const bracketless = first.replace(/^\[(.*)\]$/, '$1');
  if (!ipaddr.IPv6.isValid(bracketless)) return undefined;
  const v6 = ipaddr.IPv6.parse(bracketless);
  if (v6.isIPv4MappedAddress()) return parseIpv4(v6.toIPv4Address().toString());
  return { kind: 'ipv6', normalized: v6.toRFC5952String(), publicUnicast: v6.range() === 'unicast' };
}

function parseIpv4(text: string): ParsedIp | undefined {
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(text)) return undefined;
  const parts = text.split('.').map((p) => Number.parseInt(p, 10));
  if (parts.some((p) => p > 255)) return undefined;
  const v4 = new ipaddr.IPv4(parts);
  return { kind: 'ipv4', normalized: parts.join('.'), publicUnicast: v4.range() === 'unicast' };
}
