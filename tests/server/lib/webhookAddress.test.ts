// Where a webhook may go in production: the checks made when an endpoint is saved and, on the
// addresses the connection resolves, at every delivery (a name that now points inside is refused).
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { addressRefusal, checkedLookup, isInternalAddress } from '../../../src/server/lib/webhookAddress.js';

const production = { production: true, allowPrivate: false };

/** What a delivery's connection is given for `host`: its addresses, or the refusal. */
const lookedUp = (host: string, rules = production) =>
  new Promise<LookupAddress[] | Error>((resolve) =>
    checkedLookup(rules)(host, { all: true }, (error, addresses) => resolve(error ?? (addresses as unknown as LookupAddress[]))),
  );

describe('webhook addresses', () => {
  it('knows the loopback, link-local and private ranges, in both families', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.8',
      '172.31.255.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:10.0.0.1',
      // An internal IPv4 address carried in IPv6: mapped (in hex too), compatible, NAT64, 6to4; and Teredo, whose IPv4 is hidden.
      '::ffff:7f00:1',
      '::7f00:1',
      '::127.0.0.1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b::192.168.0.1',
      '2002:7f00:1::',
      '2002:a00:1::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      '2001:db8::1',
    ])
      expect(isInternalAddress(address), address).toBe(true);
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '64:ff9b::808:808', '2002:808:808::1', '2a00:1450:4001:80b::200e'])
      expect(isInternalAddress(address), address).toBe(false);
  });

  it('refuses at delivery a name that resolves inside, unless the endpoint allows it', async () => {
    expect(await lookedUp('localhost')).toEqual(
      new Error('The endpoint resolves to a loopback, link-local or private address. Set allowPrivate to deliver to it.'),
    );
    expect(await lookedUp('localhost', { production: true, allowPrivate: true })).toContainEqual({ address: '127.0.0.1', family: 4 });
    expect(await lookedUp('localhost', { production: false, allowPrivate: false })).toContainEqual({ address: '127.0.0.1', family: 4 });
  });

  it('asks for https in production, and lets anything through elsewhere', async () => {
    expect(await addressRefusal(new URL('http://example.com/'), production)).toBe('url must be an https address in production.');
    expect(await addressRefusal(new URL('https://127.0.0.1/'), production)).toBe(
      'The endpoint resolves to a loopback, link-local or private address. Set allowPrivate to deliver to it.',
    );
    expect(await addressRefusal(new URL('https://127.0.0.1/'), { production: true, allowPrivate: true })).toBeNull();
    expect(await addressRefusal(new URL('http://127.0.0.1/'), { production: false, allowPrivate: false })).toBeNull();
  });
});
