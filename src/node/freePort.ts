import { createServer, type AddressInfo } from 'node:net';

/**
 * A port nothing listens on, as the system hands one out, for a process started next (a database,
 * a balancer, an emulator). Another process may take it first: the one started then fails to listen,
 * and says so.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
