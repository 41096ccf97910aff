import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { availability, startDemoCalendar } from './demo-calendar';
import { demoDate } from './demo';

/** The dev stack's calendar for the demo flow: real HTTPS, its certificate trusted as a CA file. */

const dir = mkdtempSync(join(tmpdir(), 'demo-calendar-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A POST over HTTPS trusting only the calendar's certificate, as NODE_EXTRA_CA_CERTS makes the stack do. */
function post(url: string, ca: string | undefined, body: string): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', ca, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const asked = (date: unknown) =>
  JSON.stringify({ name: 'Check the calendar', call_id: 'c', args: { name: 'Dana', date } });

describe('the demo calendar', () => {
  it('holds a free weekday for the first caller and offers the next free weekday after', async () => {
    const calendar = await startDemoCalendar({ dir });
    try {
      const ca = readFileSync(calendar.caFile, 'utf8');
      // 2026-12-01 is a Tuesday.
      expect(await post(calendar.url, ca, asked('2026-12-01'))).toEqual({
        status: 200,
        json: { available: true },
      });
      expect(await post(calendar.url, ca, asked('2026-12-01'))).toEqual({
        status: 200,
        json: { available: false, alternative_date: '2026-12-02' },
      });
      // A Saturday: the Monday after.
      expect((await post(calendar.url, ca, asked('2026-12-05'))).json).toEqual({
        available: false,
        alternative_date: '2026-12-07',
      });
      expect(await post(calendar.url, ca, asked('next week'))).toEqual({
        status: 400,
        json: { error: 'args.date must be a date (YYYY-MM-DD)' },
      });
      // Not trusted without its certificate: a real TLS endpoint.
      await expect(post(calendar.url, undefined, asked('2026-12-08'))).rejects.toThrow(/self-signed/);
    } finally {
      await calendar.stop();
    }
  });

  it('keeps its certificate across runs, so the trust the stack was given holds', async () => {
    const first = await startDemoCalendar({ dir });
    const pem = readFileSync(first.caFile, 'utf8');
    await first.stop();
    const second = await startDemoCalendar({ dir });
    try {
      expect(readFileSync(second.caFile, 'utf8')).toBe(pem);
      expect((await post(second.url, pem, asked('2026-12-01'))).json).toEqual({ available: true });
    } finally {
      await second.stop();
    }
  });

  it('offers past every date held and every weekend', () => {
    const held = new Set(['2026-12-04', '2026-12-07']);
    // Friday the 4th held, the weekend, Monday the 7th held: Tuesday the 8th.
    expect(availability(held, '2026-12-04')).toEqual({ available: false, alternative_date: '2026-12-08' });
  });
});

describe('the demo model’s dates', () => {
  const saturday = new Date('2026-11-28T12:00:00Z');
  it('reads an ISO date, tomorrow, and a weekday as the next one', () => {
    expect(demoDate('the first of December, 2026-12-01', saturday)).toBe('2026-12-01');
    expect(demoDate('Tomorrow please', saturday)).toBe('2026-11-29');
    expect(demoDate('Tuesday morning works for me.', saturday)).toBe('2026-12-01');
    expect(demoDate('Saturday', saturday)).toBe('2026-12-05');
    expect(demoDate('Hi, this is Dana.', saturday)).toBeNull();
  });
});
