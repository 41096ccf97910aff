import { createServer } from 'node:net';

function listenOn(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(bound));
    });
  });
}

/** Ports handed out by this process: each once, since nothing binds them until the caller does. */
const handedOut = new Set<number>();

/**
 * A free TCP port on loopback, between 10000 and 32000: outside the OS's ephemeral range (32768 and up),
 * from which the OS picks the local port of every outgoing connection and of every `listen(0)`. A port
 * the OS handed out as free could be taken by a connection (to Postgres, to Temporal) or another
 * process's listener before the caller binds it; one outside that range only by a process that chose
 * the same number in the same moment. Never one this process returned before (a server's ten ports are
 * chosen before it binds any of them). The Temporal server needs ports this low: it stores its
 * membership ports as a smallint.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const candidate = 10_000 + Math.floor(Math.random() * 22_000);
    if (handedOut.has(candidate)) continue;
    // Reserved before the check, so that calls made together never share a port.
    handedOut.add(candidate);
    if (await listenOn(candidate).catch(() => null)) return candidate;
    handedOut.delete(candidate);
  }
  throw new Error('no free port found between 10000 and 32000');
}

/** A free port the Temporal server can take (see freePort). */
export const freeLowPort = freePort;
