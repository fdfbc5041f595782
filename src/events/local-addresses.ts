import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

/**
 * What an address or host name is, as far as webhook targets care: this machine (loopback, the
 * unspecified address — a connection to 0.0.0.0 or [::] reaches this host — or one of its own
 * interface addresses), a private network (RFC 1918, link-local, unique local, CGNAT), or the
 * internet. Addresses are compared in ipaddr.js' canonical form, so every spelling of one address
 * (`::ffff:127.0.0.1`, `[::ffff:7f00:1]`, `0:0:0:0:0:0:0:1`) is the same address; the IPv4 forms a
 * URL accepts (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`) are normalised by the URL parser
 * before they get here.
 */

// ipaddr.js range names (RFC 6890 and friends) that never leave the local network.
const PRIVATE_RANGES = new Set(['loopback', 'unspecified', 'private', 'linkLocal', 'uniqueLocal', 'carrierGradeNat']);
const THIS_HOST_RANGES = new Set(['loopback', 'unspecified']);

/** The address in canonical form (IPv4-mapped IPv6 as IPv4), or undefined when `host` is not an IP literal. */
export function canonicalAddress(host: string): string | undefined {
  const bare = host.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isIP(bare)) return undefined;
  return ipaddr.process(bare).toString();
}

function rangeOf(address: string): string {
  return ipaddr.process(address).range();
}

/** The addresses of this machine's interfaces, canonical (read each time: interfaces come and go). */
export function interfaceAddresses(): Set<string> {
  const out = new Set<string>();
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      const address = canonicalAddress(entry.address);
      if (address) out.add(address);
    }
  }
  return out;
}

/**
 * True when a connection to this address reaches this machine.
 * @example isThisHostAddress('::ffff:7f00:1') // true
 */
export function isThisHostAddress(address: string): boolean {
  const canonical = canonicalAddress(address);
  if (!canonical) return false;
  return THIS_HOST_RANGES.has(rangeOf(canonical)) || interfaceAddresses().has(canonical);
}

/**
 * True for this machine and private networks: what a web page must not reach through the mock.
 * @example isPrivateAddress('192.168.1.1') // true
 */
export function isPrivateAddress(address: string): boolean {
  const canonical = canonicalAddress(address);
  if (!canonical) return false;
  return PRIVATE_RANGES.has(rangeOf(canonical)) || isThisHostAddress(canonical);
}

/**
 * Names that mean this machine without asking DNS: `localhost` and `*.localhost` (RFC 6761 §6.3)
 * and the machine's own host name; a trailing dot changes nothing.
 * @example isThisHostName('LocalHost.') // true
 */
export function isThisHostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  const own = hostname().toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || (own !== '' && name === own);
}
