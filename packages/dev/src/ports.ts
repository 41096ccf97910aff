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

/** Asks the OS for a free TCP port on loopback. */
export function freePort(): Promise<number> {
  return listenOn(0);
}

/** Low ports handed out by this process: each once, since nothing binds them until the caller does. */
const handedOut = new Set<number>();

/**
 * A free TCP port on loopback below 32768, outside the OS's ephemeral range: the Temporal server
 * stores its membership ports as a smallint. Never one this process returned before (a server's ten
 * ports are chosen before it binds any of them).
 */
export async function freeLowPort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const candidate = 20_000 + Math.floor(Math.random() * 12_000);
    if (handedOut.has(candidate)) continue;
    const bound = await listenOn(candidate).catch(() => null);
    if (bound) {
      handedOut.add(bound);
      return bound;
    }
  }
  throw new Error('no free port found between 20000 and 32000');
}
