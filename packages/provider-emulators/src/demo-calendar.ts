import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { generate } from 'selfsigned';

/**
 * The demo's customer calendar (`pnpm dev`): the appointment flow's function node asks it whether a date
 * is free, over HTTPS, as it would ask a customer's own endpoint. Its certificate is self-signed, kept in
 * `dir` across runs, and trusted by the dev stack's processes (NODE_EXTRA_CA_CERTS); its host is on the
 * stack's allow-list of non-public addresses (WEBHOOK_ALLOWED_HOSTS).
 *
 * `POST /availability` with the function node's body (`{ "args": { "date": "2026-12-01", ... } }`): a
 * free weekday is held for the caller (`{ "available": true }`); a Saturday, a Sunday or a date already
 * held is not, and the next free weekday is offered (`{ "available": false, "alternative_date": ... }`).
 */

export interface DemoCalendar {
  /** `https://127.0.0.1:<port>/availability`: the demo flow's function URL. */
  url: string;
  /** `127.0.0.1:<port>`, for the allow-list of non-public hosts. */
  host: string;
  /** The certificate (PEM file) to trust. */
  caFile: string;
  /** The dates held so far. */
  held: Set<string>;
  stop(): Promise<void>;
}

const DAY_MS = 86_400_000;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

const isWeekend = (date: string) => [0, 6].includes(new Date(`${date}T00:00:00Z`).getUTCDay());
const nextDay = (date: string) =>
  new Date(new Date(`${date}T00:00:00Z`).getTime() + DAY_MS).toISOString().slice(0, 10);

/** The calendar's answer for `date`, holding it when it is free. */
export function availability(held: Set<string>, date: string) {
  if (!isWeekend(date) && !held.has(date)) {
    held.add(date);
    return { available: true };
  }
  let other = nextDay(date);
  while (isWeekend(other) || held.has(other)) other = nextDay(other);
  return { available: false, alternative_date: other };
}

/** The certificate kept in `dir`, made again when missing or within a day of expiring. */
async function certificate(dir: string): Promise<{ key: string; cert: string; caFile: string }> {
  mkdirSync(dir, { recursive: true });
  const caFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  if (existsSync(caFile) && existsSync(keyFile)) {
    const cert = readFileSync(caFile, 'utf8');
    if (new Date(new X509Certificate(cert).validTo).getTime() > Date.now() + DAY_MS)
      return { key: readFileSync(keyFile, 'utf8'), cert, caFile };
  }
  return { ...(await generated(keyFile, caFile)), caFile };
}

async function generated(keyFile: string, caFile: string) {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  });
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  writeFileSync(caFile, pems.cert);
  return { key: pems.private, cert: pems.cert };
}

export async function startDemoCalendar({
  dir,
  port = 0,
}: {
  dir: string;
  port?: number;
}): Promise<DemoCalendar> {
  const { key, cert, caFile } = await certificate(dir);
  const held = new Set<string>();
  const server = createServer({ key, cert }, (request, response) => {
    const answer = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.url !== '/availability') return answer(404, { error: 'not found' });
    if (request.method !== 'POST') return answer(405, { error: 'POST the function node’s body' });
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      let date: unknown;
      try {
        date = (JSON.parse(body) as { args?: { date?: unknown } }).args?.date;
      } catch {
        return answer(400, { error: 'the body is not JSON' });
      }
      if (typeof date !== 'string' || !ISO_DATE.test(date) || Number.isNaN(Date.parse(date)))
        return answer(400, { error: 'args.date must be a date (YYYY-MM-DD)' });
      answer(200, availability(held, date));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${bound}/availability`,
    host: `127.0.0.1:${bound}`,
    caFile,
    held,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
