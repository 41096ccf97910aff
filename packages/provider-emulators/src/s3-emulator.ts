import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An object store speaking the S3 REST protocol for the two calls the service makes, as AWS documents
 * them: PutObject and GetObject, path-style (`/{bucket}/{key}`), requests signed with AWS Signature
 * Version 4 by the caller's access key (the key id is checked, the signature's arithmetic is not),
 * bodies plain or `aws-chunked` (the SDK's streaming checksums), errors as S3's XML. For tests only.
 */

export interface S3Emulator {
  /** The endpoint (`http://…`), for `forcePathStyle` clients. */
  url: string;
  /** Stored objects by `bucket/key`. */
  objects: Map<string, { body: Buffer; contentType: string | undefined }>;
  stop(): Promise<void>;
}

function xmlError(response: ServerResponse, status: number, code: string, message: string) {
  response.writeHead(status, { 'content-type': 'application/xml' });
  response.end(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  );
}

function readRaw(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** An `aws-chunked` body's data: `<hex size>[;extensions]\r\n<data>\r\n` … `0\r\n<trailers>\r\n\r\n`. */
function decodeAwsChunked(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(raw.toString('latin1', at, lineEnd).split(';')[0]!, 16);
    if (!size) break;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

export async function startS3Emulator(options: {
  accessKeyId: string;
  buckets: string[];
  port?: number;
}): Promise<S3Emulator> {
  const objects: S3Emulator['objects'] = new Map();
  const buckets = new Set(options.buckets);

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) =>
      xmlError(response, 500, 'InternalError', String(error)),
    );
  });

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://emulator');
    const [, bucket, ...rest] = url.pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    const credential = /Credential=([^/]+)\//.exec(request.headers.authorization ?? '')?.[1];
    if (!request.headers.authorization?.startsWith('AWS4-HMAC-SHA256 ') || !credential)
      return xmlError(response, 403, 'AccessDenied', 'Requests must be signed with AWS Signature Version 4');
    if (credential !== options.accessKeyId)
      return xmlError(
        response,
        403,
        'InvalidAccessKeyId',
        'The AWS access key Id you provided does not exist',
      );
    if (!bucket || !buckets.has(bucket))
      return xmlError(response, 404, 'NoSuchBucket', 'The bucket does not exist');
    const id = `${bucket}/${key}`;
    if (request.method === 'PUT') {
      const raw = await readRaw(request);
      const chunked = String(request.headers['content-encoding'] ?? '').includes('aws-chunked');
      objects.set(id, {
        body: chunked ? decodeAwsChunked(raw) : raw,
        contentType: request.headers['content-type'],
      });
      response.writeHead(200, { etag: `"${objects.size}"` });
      return response.end();
    }
    if (request.method === 'GET') {
      const object = objects.get(id);
      if (!object) return xmlError(response, 404, 'NoSuchKey', 'The specified key does not exist.');
      response.writeHead(200, {
        'content-type': object.contentType ?? 'application/octet-stream',
        'content-length': object.body.length,
      });
      return response.end(object.body);
    }
    xmlError(response, 405, 'MethodNotAllowed', `${request.method} is not supported here`);
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    objects,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
