import { connect, createServer, type Socket } from 'node:net';

export interface TcpProxy {
  /** `host:port` to hand to the client instead of the target's. */
  address: string;
  /** Stops forwarding in both directions, on open and new connections alike: the link hangs, nothing fails. */
  freeze(): void;
  close(): Promise<void>;
}

/** A TCP proxy on loopback in front of `target` (`host:port`), which the test can freeze. */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const [host, port] = [
    target.slice(0, target.lastIndexOf(':')),
    Number(target.slice(target.lastIndexOf(':') + 1)),
  ];
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  let frozen = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A reset on one side only ends that pair; the proxy itself must never throw.
    socket.on('error', () => socket.destroy());
  };
  const hold = ([a, b]: [Socket, Socket]) => {
    a.unpipe(b);
    b.unpipe(a);
    a.pause();
    b.pause();
  };
  const server = createServer((downstream) => {
    track(downstream);
    if (frozen) {
      downstream.pause();
      return;
    }
    const upstream = connect({ host, port });
    track(upstream);
    const pair: [Socket, Socket] = [downstream, upstream];
    pairs.add(pair);
    downstream.on('close', () => upstream.destroy());
    upstream.on('close', () => downstream.destroy());
    downstream.pipe(upstream);
    upstream.pipe(downstream);
    if (frozen) hold(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: proxyPort } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${proxyPort}`,
    freeze() {
      frozen = true;
      for (const pair of pairs) hold(pair);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
