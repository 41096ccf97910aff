import { createServer } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';

/** How the endpoint answers one request. */
export interface EndpointAnswer {
  status: number;
  body?: string;
  /** Time before answering. */
  delayMs?: number;
}

export interface HttpsEndpoint {
  /** `https://127.0.0.1:<port>`. */
  url: string;
  /** `127.0.0.1:<port>`, for the allow-list of non-public hosts. */
  host: string;
  /** The endpoint's self-signed certificate (PEM), for the caller to trust. */
  ca: string;
  received: { path: string; headers: IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

/** An HTTPS server on loopback with a self-signed certificate: a customer's endpoint in tests. */
export async function startHttpsEndpoint(
  answer: (request: { path: string; headers: IncomingHttpHeaders; body: string }) => EndpointAnswer,
): Promise<HttpsEndpoint> {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const received: HttpsEndpoint['received'] = [];
  const server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const request = { path: req.url ?? '/', headers: req.headers, body };
      received.push(request);
      const { status, body: reply = '', delayMs = 0 } = answer(request);
      setTimeout(() => {
        if (!res.destroyed) res.writeHead(status, { 'content-type': 'application/json' }).end(reply);
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    ca: pems.cert,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
