/**
 * A TCP proxy in front of a local server (PostgreSQL), breaking connections as a network or a
 * database going away can: it resets connections as they open, or lets the open ones die quietly,
 * each reset at its next word, as a pooled connection whose end its client has not heard of yet.
 */
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  port: number;
  /** The next `count` connections are reset as they open. */
  resetOpening(count: number): void;
  /** Every connection open now dies quietly: reset at its next word. */
  killOpen(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  let toReset = 0;
  const open = new Map<Socket, { dead: boolean }>();
  const server = createServer((client) => {
    client.on('error', () => undefined);
    if (toReset > 0) {
      toReset -= 1;
      client.resetAndDestroy();
      return;
    }
    const state = { dead: false };
    open.set(client, state);
    const upstream = connect(targetPort, '127.0.0.1');
    upstream.on('error', () => client.destroy());
    upstream.pipe(client);
    client.on('data', (chunk: Buffer) => {
      if (!state.dead) upstream.write(chunk);
      else {
        client.resetAndDestroy();
        upstream.destroy();
      }
    });
    client.on('close', () => {
      open.delete(client);
      upstream.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    resetOpening: (count) => {
      toReset = count;
    },
    killOpen: () => {
      for (const state of open.values()) state.dead = true;
    },
    close: () =>
      new Promise((resolve) => {
        for (const client of open.keys()) client.destroy();
        server.close(() => resolve());
      }),
  };
}
