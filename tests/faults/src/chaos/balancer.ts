import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';

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
