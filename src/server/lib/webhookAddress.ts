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
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  INTERNAL.addSubnet(network, prefix, 'ipv6');

/** Whether `address` (an IP) is on a loopback, link-local, private or otherwise internal network; an IPv4 address written as IPv6 is read as itself. */
export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return INTERNAL.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  return family === 0 || INTERNAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
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
