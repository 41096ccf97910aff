import ipaddr from 'ipaddr.js';
import type { HostResolver } from './resolver';

/**
 * The rule that keeps webhooks (and anything else the service calls on a user's behalf) from reaching
 * the service's own network: only public unicast addresses are allowed. Loopback, RFC 1918 private,
 * link-local (including the cloud metadata address 169.254.169.254), CGNAT 100.64/10, unique-local
 * fc00::/7, multicast, unspecified, reserved and documentation ranges are refused, also when written
 * as IPv4-mapped IPv6 or in the numeric forms URL parsing normalizes (2130706433, 0x7f.1).
 */

/** Why an address is not public, or null when it is. */
export function nonPublicReason(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'is not an IP address';
  // ipaddr.process turns IPv4-mapped IPv6 (::ffff:127.0.0.1) into the IPv4 address it carries.
  const range = ipaddr.process(address).range();
  return range === 'unicast' ? null : `is ${RANGE_PHRASES[range] ?? `a reserved (${range})`} address`;
}

const RANGE_PHRASES: Record<string, string> = {
  loopback: 'a loopback',
  private: 'a private',
  linkLocal: 'a link-local',
  carrierGradeNat: 'a carrier-grade NAT',
  uniqueLocal: 'a unique-local',
  unspecified: 'an unspecified',
  multicast: 'a multicast',
  broadcast: 'a broadcast',
};

/** `[::1]` → `::1`; URL hostnames keep IPv6 brackets. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

export interface AddressCheck {
  ok: boolean;
  /** Why the host is refused, phrased to follow the host name. */
  reason?: string;
  addresses: string[];
  /** The name resolved to nothing, or its resolution failed: nothing is known about it yet. */
  unresolved?: true;
}

/**
 * Checks a host (from a parsed URL) against the rule: an IP literal directly, a name through every
 * address it resolves to. `localhost` and `*.localhost` are refused without asking DNS.
 */
export async function checkPublicHost(hostname: string, resolve: HostResolver): Promise<AddressCheck> {
  const host = bareHost(hostname).toLowerCase().replace(/\.$/, '');
  if (ipaddr.isValid(host)) {
    const reason = nonPublicReason(host);
    return reason
      ? { ok: false, reason: `${host} ${reason}`, addresses: [host] }
      : { ok: true, addresses: [host] };
  }
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return { ok: false, reason: `${host} is a loopback name`, addresses: [] };
  }
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0)
    return { ok: false, reason: `${host} does not resolve`, addresses, unresolved: true };
  for (const address of addresses) {
    const reason = nonPublicReason(address);
    if (reason) return { ok: false, reason: `${host} resolves to ${address}, which ${reason}`, addresses };
  }
  return { ok: true, addresses };
}
