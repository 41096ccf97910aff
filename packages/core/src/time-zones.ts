/** Whether the runtime knows `timezone` as an IANA time zone (e.g. Europe/Paris). */
export function isValidTimezone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Hours, days and months in an IANA time zone, from the runtime's own zone data (Intl): where one starts
 * and the next, and where the zone's offset from UTC changes. Every zone's offset since 1972 is a whole
 * number of quarter hours, so these boundaries fall on the analytics rollups' quarter-hour buckets.
 * Campaigns' calling windows read a contact's local time from the same offsets.
 */
export type ZoneUnit = 'hour' | 'day' | 'month';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
export const QUARTER_HOUR_MS = HOUR_MS / 4;

/** `a` modulo `b`, never negative. */
export const mod = (a: number, b: number) => ((a % b) + b) % b;

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let found = formatters.get(zone);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, found);
  }
  return found;
}

/** How far `zone`'s clocks are ahead of UTC at the instant `at` (Unix ms), in ms. */
export function zoneOffsetMs(zone: string, at: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(at))
    if (part.type !== 'literal' && part.type !== 'era') parts[part.type] = Number(part.value);
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return wall - (at - mod(at, 1000));
}

/**
 * The first instant the clocks of `zone` show `wall` (a wall-clock time written as if it were UTC), or
 * where they skip it, the instant they jump over it.
 */
export function fromWall(zone: string, wall: number): number {
  const candidates = [wall - zoneOffsetMs(zone, wall - DAY_MS), wall - zoneOffsetMs(zone, wall + DAY_MS)];
  const shown = candidates.filter((at) => at + zoneOffsetMs(zone, at) === wall);
  return shown.length ? Math.min(...shown) : Math.max(...candidates);
}

/** The start of the hour, day or month of `zone` that holds the instant `at`. */
export function zoneFloor(zone: string, at: number, unit: ZoneUnit): number {
  const wall = at + zoneOffsetMs(zone, at);
  if (unit === 'hour') return at - mod(wall, HOUR_MS);
  const date = new Date(wall);
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), unit === 'day' ? date.getUTCDate() : 1);
  return fromWall(zone, start);
}

/** The start of the hour, day or month of `zone` after the one starting at `start`. */
export function zoneNext(zone: string, start: number, unit: ZoneUnit): number {
  if (unit === 'hour') {
    const next = start + HOUR_MS;
    const aligned = next - mod(next + zoneOffsetMs(zone, next), HOUR_MS);
    return aligned > start ? aligned : next;
  }
  const date = new Date(start + zoneOffsetMs(zone, start));
  const wall =
    unit === 'day'
      ? Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1)
      : Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
  const next = fromWall(zone, wall);
  return next > start ? next : start + (unit === 'day' ? DAY_MS : 28 * DAY_MS);
}

/** [from, to) cut where `zone`'s offset changes, each piece with its offset (ms ahead of UTC). */
export function offsetSegments(
  zone: string,
  from: number,
  to: number,
): { from: number; to: number; offsetMs: number }[] {
  const segments: { from: number; to: number; offsetMs: number }[] = [];
  let start = from;
  let offset = zoneOffsetMs(zone, from);
  // `low` is known to have `offset`. A day at a time (no zone changes its offset twice in a day), then
  // to the second of the change (offsets change on whole seconds).
  let low = from;
  while (low < to - 1) {
    let high = Math.min(low + DAY_MS, to - 1);
    if (zoneOffsetMs(zone, high) === offset) {
      low = high;
      continue;
    }
    while (high - low > 1000) {
      const middle = low + Math.floor((high - low) / 2000) * 1000;
      if (zoneOffsetMs(zone, middle) === offset) low = middle;
      else high = middle;
    }
    const change = Math.min(low + 1000 - mod(low, 1000), high);
    segments.push({ from: start, to: change, offsetMs: offset });
    start = low = change;
    offset = zoneOffsetMs(zone, change);
  }
  segments.push({ from: start, to, offsetMs: offset });
  return segments;
}
