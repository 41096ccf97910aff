import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect as connectTcp, createServer as createNetServer, type Socket } from 'node:net';

/**
 * The load balancer in front of the api instances, as production puts one there: PUBLIC_URL (where
 * Twilio posts its webhooks and callbacks) and the clients' URL stay the same while instances die and
 * come back on other ports. Like nginx, a request whose connection was refused is passed to the next
 * instance (nothing reached the first); one that failed after it was sent is answered 502.
 */
export interface Balancer {
  url: string;
  /** Host and port, for allow-lists. */
  host: string;
  close(): Promise<void>;
}

export async function startBalancer(targets: () => string[]): Promise<Balancer> {
  const forward = (
    target: string,
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    body: Buffer,
    answer: (status: number, headers: IncomingHttpHeaders, stream: NodeJS.ReadableStream) => void,
  ) =>
    new Promise<'sent' | 'refused'>((resolve, reject) => {
      const outgoing = request(new URL(path, target), { method, headers }, (response) => {
        answer(response.statusCode ?? 502, response.headers, response);
        resolve('sent');
      });
      outgoing.on('error', (error: NodeJS.ErrnoException) =>
        error.code === 'ECONNREFUSED' ? resolve('refused') : reject(error),
      );
      outgoing.end(body);
    });

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const live = targets();
        const first = Math.floor(Math.random() * Math.max(live.length, 1));
        for (let n = 0; n < live.length; n += 1) {
          const target = live[(first + n) % live.length]!;
          try {
            const outcome = await forward(
              target,
              req.method ?? 'GET',
              req.url ?? '/',
              req.headers,
              Buffer.concat(chunks),
              (status, headers, stream) => {
                res.writeHead(status, headers);
                stream.pipe(res);
                stream.on('error', () => res.destroy());
                res.on('close', () => (stream as NodeJS.ReadableStream & { destroy(): void }).destroy());
              },
            );
            if (outcome === 'sent') return;
          } catch {
            if (res.headersSent) res.destroy();
            else res.writeHead(502).end();
            return;
          }
        }
        res.writeHead(502).end();
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url: `http://${host}`,
    host,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The balancer in front of the media servers: connections, and how many went to each target. */
export interface ConnectionBalancer {
  port: number;
  /** Connections passed to each target port so far. */
  connections: Map<number, number>;
  close(): Promise<void>;
}

/**
 * The load balancer in front of the media servers, as production puts one there (docs/scaling.md): each
 * TCP connection (a call's WebSocket) goes whole to one target, round robin, and stays there: the
 * connection is the affinity. A target that refuses is skipped for the next; none left, the connection
 * is closed (the carrier's stream fails, as it would).
 */
export async function startConnectionBalancer(targets: () => number[]): Promise<ConnectionBalancer> {
  const connections = new Map<number, number>();
  let next = 0;
  const sockets = new Set<Socket>();
  const server = createNetServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.pause();
    const live = targets();
    const attempt = (tries: number) => {
      if (tries >= live.length) return client.destroy();
      const port = live[next++ % live.length]!;
      const upstream = connectTcp(port, '127.0.0.1');
      sockets.add(upstream);
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        connections.set(port, (connections.get(port) ?? 0) + 1);
        client.pipe(upstream).pipe(client);
        client.resume();
        client.on('error', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        client.on('close', () => upstream.destroy());
      });
      upstream.on('error', () => {
        sockets.delete(upstream);
        if (connected) client.destroy();
        else attempt(tries + 1);
      });
    };
    attempt(0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
