/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// The dashboard's call list at 1,000 rows in headless Chromium, beside a plain HTML table of the same rows
// with the same stylesheet and no script (the baseline): time until the 1,000th row is on screen, the main
// thread's long tasks (over 50 ms) while loading, and frame times while scrolling through the whole list.
// Also the switch from 50 to 1,000 rows a page inside the running dashboard. `BENCH_RUNS` (5) runs each.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createUser } from '@voice/core';
import { chromium, type Page } from 'playwright-core';
import { benchAccount, benchEnvironment, benchTitle, percentile, startBenchApi } from './harness';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const ROWS = 1000;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  console.error(
    `the dashboard benchmark needs Chromium at ${CHROMIUM} (apt-get install chromium, or CHROMIUM_PATH)`,
  );
  process.exit(2);
}

const bench = await benchEnvironment();
const { db } = bench.database;
const { deps, accountId } = await benchAccount(db);
const password = `bench-${randomUUID()}`;
await createUser(deps, { accountId, email: 'bench@example.com', name: 'Bench', password });
const agent = await db.agent.create({ data: { accountId, name: 'Bench agent', voiceId: 'he-ori' } });
const now = Date.now();
await db.call.createMany({
  data: Array.from({ length: 1200 }, (_, i) => {
    const createdAt = new Date(now - (i + 1) * 60_000);
    return {
      id: randomUUID(),
      accountId,
      agentId: agent.id,
      agentVersion: 1,
      fromNumber: '+14155550100',
      toNumber: `+1650555${String(i % 10_000).padStart(4, '0')}`,
      status: (['ended', 'busy', 'no_answer', 'user_hangup'] as const)[i % 4],
      createdAt,
      connectedAt: new Date(createdAt.getTime() + 5_000),
      endedAt: new Date(createdAt.getTime() + 65_000),
      workflowStartedAt: createdAt,
    };
  }),
});
const { api, apiUrl } = await startBenchApi(bench);

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-gpu'],
});
// The api and the browser stop whatever happens, so a failed run leaves no process behind.
try {
  await measure();
} finally {
  await browser.close();
  await api.stop();
  await bench.close();
}

async function measure() {
  const context = await browser.newContext({ baseURL: apiUrl, viewport: { width: 1280, height: 800 } });

  /**
   * Before any script of the page: long tasks as they happen, and the time (from the navigation) at which
   * the table first holds `ROWS` rows, looked for on every frame.
   */
  await context.addInitScript(`
    window.__bench = { longTasks: [], rowsAt: null, watchRows() {
      const look = () => {
        if (document.querySelectorAll('tbody tr').length >= ${ROWS}) window.__bench.rowsAt = performance.now();
        else requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    } };
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__bench.longTasks.push(entry.duration);
    }).observe({ type: 'longtask', buffered: true });
    window.__bench.watchRows();
  `);

  const page = await context.newPage();
  await page.goto('/app/sign-in');
  await page.getByLabel('Email').fill('bench@example.com');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/app/calls');

  interface Measured {
    rowsAt: number;
    longTasks: number[];
    frames: number[];
  }

  const measured = (target: Page) =>
    target.evaluate(
      () => (window as unknown as { __bench: { rowsAt: number; longTasks: number[] } }).__bench,
    );

  /**
   * Scrolls the page from top to bottom, 400 px a frame, and returns each frame's duration (ms). A string,
   * so the page gets the code as written (tsx names inner functions with a helper the page lacks).
   */
  const SCROLL_FRAMES = `new Promise((resolve) => {
    window.scrollTo(0, 0);
    const frames = [];
    let last = performance.now();
    const step = () => {
      const at = performance.now();
      frames.push(at - last);
      last = at;
      if (window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 1) resolve(frames.slice(1));
      else {
        window.scrollBy(0, 400);
        requestAnimationFrame(step);
      }
    };
    requestAnimationFrame(step);
  })`;
  const scrollFrames = (target: Page) => target.evaluate(SCROLL_FRAMES) as Promise<number[]>;

  async function loadDashboard(): Promise<Measured> {
    await page.goto(`/app/calls?limit=${ROWS}`);
    await page.waitForFunction(
      () => (window as unknown as { __bench: { rowsAt: number | null } }).__bench.rowsAt !== null,
    );
    const { rowsAt, longTasks } = await measured(page);
    return { rowsAt, longTasks, frames: await scrollFrames(page) };
  }

  /** The same table as plain HTML, with the dashboard's stylesheet, served from the api's origin. */
  const tableHtml = await (async () => {
    await page.goto(`/app/calls?limit=${ROWS}`);
    await page.waitForFunction((rows) => document.querySelectorAll('tbody tr').length >= rows, ROWS);
    const table = await page.locator('.table-scroll').evaluate((element) => element.outerHTML);
    const styles = await page.evaluate(() =>
      [...document.querySelectorAll('link[rel="stylesheet"]')].map((link) => (link as HTMLLinkElement).href),
    );
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Calls</title>${styles
      .map((href) => `<link rel="stylesheet" href="${href}">`)
      .join('')}</head><body><main><h1>Calls</h1>${table}</main></body></html>`;
  })();
  await context.route('**/bench-baseline', (route) =>
    route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: tableHtml }),
  );

  async function loadBaseline(): Promise<Measured> {
    await page.goto('/bench-baseline');
    await page.waitForFunction(
      () => (window as unknown as { __bench: { rowsAt: number | null } }).__bench.rowsAt !== null,
    );
    const { rowsAt, longTasks } = await measured(page);
    return { rowsAt, longTasks, frames: await scrollFrames(page) };
  }

  /** Inside the running dashboard: from choosing 1,000 rows a page (50 shown) to the 1,000th row. */
  async function switchTo1000(): Promise<{ ms: number; longTasks: number[] }> {
    await page.goto('/app/calls');
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 50);
    await page.evaluate(() => {
      const bench = (
        window as unknown as { __bench: { longTasks: number[]; rowsAt: number | null; watchRows(): void } }
      ).__bench;
      bench.longTasks.length = 0;
      bench.rowsAt = null;
    });
    const started = await page.evaluate(() => performance.now());
    await page.getByLabel('Rows per page').selectOption(String(ROWS));
    await page.evaluate(() => (window as unknown as { __bench: { watchRows(): void } }).__bench.watchRows());
    await page.waitForFunction(
      () => (window as unknown as { __bench: { rowsAt: number | null } }).__bench.rowsAt !== null,
    );
    const { rowsAt, longTasks } = await measured(page);
    return { ms: rowsAt - started, longTasks };
  }

  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? 0;
  };
  function summary(runs: Measured[]) {
    const frames = runs.flatMap((run) => run.frames).sort((a, b) => a - b);
    return {
      rowsAt: median(runs.map((run) => run.rowsAt)),
      longTaskCount: median(runs.map((run) => run.longTasks.length)),
      longTaskTotal: median(runs.map((run) => run.longTasks.reduce((sum, ms) => sum + ms, 0))),
      longestTask: median(runs.map((run) => Math.max(0, ...run.longTasks))),
      frameP50: percentile(frames, 50),
      frameP95: percentile(frames, 95),
      frameMax: frames.at(-1) ?? 0,
      slowFrames: frames.filter((ms) => ms > 50).length,
      frames: frames.length,
    };
  }

  // Warm both (the browser's cache and the api's), then alternate so the machine's drift hits both alike.
  await loadBaseline();
  await loadDashboard();
  const baselineRuns: Measured[] = [];
  const dashboardRuns: Measured[] = [];
  const switches: { ms: number; longTasks: number[] }[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    baselineRuns.push(await loadBaseline());
    dashboardRuns.push(await loadDashboard());
    switches.push(await switchTo1000());
  }
  const baseline = summary(baselineRuns);
  const dashboard = summary(dashboardRuns);
  const sizes = await page.evaluate(() =>
    performance
      .getEntriesByType('resource')
      .filter((entry) => entry.name.includes('/app/assets/') && entry.name.endsWith('.js'))
      .map((entry) => (entry as PerformanceResourceTiming).encodedBodySize),
  );

  const f = (ms: number) => `${ms.toFixed(1)} ms`;
  console.log(`\n${benchTitle('dashboard 1,000-row call list', bench)}`);
  console.log(
    `Chromium headless, 1280×800, medians of ${RUNS} runs; frames while scrolling the whole list 400 px a frame`,
  );
  console.log('| | plain HTML table (baseline) | dashboard | ratio |');
  console.log('|---|---|---|---|');
  const row = (name: string, a: number, b: number, unit = f) =>
    console.log(`| ${name} | ${unit(a)} | ${unit(b)} | ${a > 0 ? (b / a).toFixed(2) : '—'} |`);
  row('1,000th row on screen, from navigation', baseline.rowsAt, dashboard.rowsAt);
  row('long tasks while loading (count)', baseline.longTaskCount, dashboard.longTaskCount, String);
  row('long tasks while loading (total)', baseline.longTaskTotal, dashboard.longTaskTotal);
  row('longest task while loading', baseline.longestTask, dashboard.longestTask);
  row('scroll frame p50', baseline.frameP50, dashboard.frameP50);
  row('scroll frame p95', baseline.frameP95, dashboard.frameP95);
  row('scroll frame max', baseline.frameMax, dashboard.frameMax);
  console.log(
    `| scroll frames over 50 ms | ${baseline.slowFrames} of ${baseline.frames} | ${dashboard.slowFrames} of ${dashboard.frames} | |`,
  );
  console.log(
    `Switching a 50-row page to 1,000 rows inside the dashboard (fetch + render): median ${f(median(switches.map((s) => s.ms)))}, ` +
      `longest task ${f(median(switches.map((s) => Math.max(0, ...s.longTasks))))}`,
  );
  console.log(
    `Dashboard JavaScript transferred: ${sizes.map((bytes) => `${(bytes / 1024).toFixed(1)} KB`).join(' + ')} (compressed)`,
  );
}
