/**
 * Where a webhook may be sent (plugins/webhooks.ts). In production an endpoint is https, and no
 * address it resolves to is on a loopback, link-local, private or otherwise internal network
 * unless an owner allowed that endpoint (a receiver inside the operator's own network): otherwise
 * whoever can name an endpoint could make the server call what only it can reach. The check is
 * made when an endpoint is saved, and again at every delivery, on the addresses the connection
 * actually uses (a name that resolves elsewhere since, or differently each time, is caught).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { DEFAULT_LOCALE } from '../../shared/locales.js';
import { messageIn } from '../serverMessages.js';

/** The ranges no webhook reaches unless allowed (IANA special-purpose registries). */
const INTERNAL = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  INTERNAL.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  // Teredo, which tunnels to an IPv4 address it hides; documentation; ORCHID.
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2001:10::', 28],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  INTERNAL.addSubnet(network, prefix, 'ipv6');

/** An IPv6 address's eight groups, as numbers ("::7f00:1" and "::127.0.0.1" alike). */
function groupsOf(address: string): number[] {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const hex = dotted
    ? address.slice(0, dotted.index) + [((+dotted[1]! << 8) | +dotted[2]!).toString(16), ((+dotted[3]! << 8) | +dotted[4]!).toString(16)].join(':')
    : address;
  const [head = '', tail] = hex.split('::');
  const part = (text: string) => (text ? text.split(':').map((group) => Number.parseInt(group, 16)) : []);
  const [front, back] = [part(head), part(tail ?? '')];
  return tail === undefined ? front : [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/**
 * The IPv4 address an IPv6 one carries and reaches through a translator or a tunnel: IPv4-mapped
 * (::ffff:0:0/96), IPv4-compatible (::/96), NAT64 (64:ff9b::/96) and 6to4 (2002::/16).
 */
function carriedIpv4(address: string): string | undefined {
  const groups = groupsOf(address);
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && (groups[5] === 0xffff || groups[5] === 0)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!);
  return undefined;
}

/** Whether `address` (an IP) is on a loopback, link-local, private or otherwise internal network; an IPv4 address an IPv6 one carries is judged as itself. */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return INTERNAL.check(address, 'ipv4');
  const carried = carriedIpv4(address);
  return INTERNAL.check(address, 'ipv6') || (carried !== undefined && INTERNAL.check(carried, 'ipv4'));
}

export interface AddressRules {
  production: boolean;
  allowPrivate: boolean;
}

/** Every address `host` resolves to (an IP literal is itself). */
async function addressesOf(host: string): Promise<LookupAddress[]> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return [{ address: bare, family: isIP(bare) }];
  return new Promise((resolve, reject) => dnsLookup(bare, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));
}

/** Why `url` can't be an endpoint under `rules` (an owner reads it: the staff section of flows/server-messages.json), or null. Outside production anything goes (a receiver on this machine: /dev/webhooks). */
export async function addressRefusal(url: URL, rules: AddressRules): Promise<string | null> {
  if (!rules.production) return null;
  if (url.protocol !== 'https:') return messageIn(DEFAULT_LOCALE, 'staff.webhookHttpsOnly');
  if (rules.allowPrivate) return null;
  let addresses: LookupAddress[];
  try {
    addresses = await addressesOf(url.hostname);
  } catch {
    return messageIn(DEFAULT_LOCALE, 'staff.webhookHostUnresolved', { host: url.hostname });
  }
  return addresses.some((each) => isInternalAddress(each.address)) ? messageIn(DEFAULT_LOCALE, 'staff.webhookAddressInternal') : null;
}

/**
 * The `lookup` of a delivery's connection under `rules`: every address the name resolves to is
 * checked, and the connection goes to those alone.
 */
export function checkedLookup(rules: AddressRules): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as LookupAddress[];
      if (rules.production && !rules.allowPrivate && list.some((each) => isInternalAddress(each.address))) {
        return callback(new Error(messageIn(DEFAULT_LOCALE, 'staff.webhookAddressInternal')), '', 0);
      }
      if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, list);
      const first = list[0]!;
      callback(null, first.address, first.family);
    });
  };
}
