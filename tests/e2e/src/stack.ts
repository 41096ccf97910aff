import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { seedDemo, type CoreDeps } from '@voice/core';
import { serviceDeps } from '@voice/core/testing';
import { createTestDatabase, type TestDatabase } from '@voice/db/testing';
import {
  JWT_SECRET,
  SECRETS_KEY,
  serviceEnv,
  startApi,
  startMedia,
  startWorker,
  stopAll,
  type ApiProcess,
  type MediaProcess,
  type WorkerProcess,
} from '@voice/dev';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { inject } from 'vitest';
import { launchBrowser } from './browser';

/**
 * What a dashboard suite runs against: the compiled api (serving the built dashboard) and worker on a
 * test database seeded with the demo account, the suite's Temporal server, and a headless Chromium.
 */
export interface DashboardStack {
  database: TestDatabase;
  deps: CoreDeps;
  demo: Awaited<ReturnType<typeof seedDemo>>;
  api: ApiProcess;
  worker: WorkerProcess;
  /** The media server, when the stack was asked for one (web calls). */
  media: MediaProcess | null;
  /** What the services were started with (the database, Temporal and its task queue). */
  env: Record<string, string>;
  browser: Browser;
  /** Both services' output, for a failure's message. */
  output(): string;
  newPage(options?: BrowserContextOptions): Promise<{ context: BrowserContext; page: Page }>;
  stop(): Promise<void>;
}

export interface StackExtras {
  /** Settings every service gets (api, worker and media server). */
  env?: Record<string, string>;
  /** A media server with these settings (its providers), before the api and worker, which are told its URL. */
  media?: Record<string, string>;
  /** Chromium's extra switches (a fake microphone). */
  browserArgs?: string[];
}

export async function startDashboardStack(
  workerEnv: Record<string, string> = {},
  extras: StackExtras = {},
): Promise<DashboardStack> {
  const database = await createTestDatabase();
  const deps = serviceDeps(database.db, { jwtSecret: JWT_SECRET, secretsKey: SECRETS_KEY });
  const demo = await seedDemo(deps);
  const base = {
    ...serviceEnv({
      databaseUrl: database.url,
      temporalAddress: inject('temporalAddress'),
      taskQueue: `e2e-${randomBytes(4).toString('hex')}`,
    }),
    ...extras.env,
  };
  const media = extras.media
    ? await startMedia('media', { ...base, ...extras.media }, undefined, 'compiled')
    : null;
  const env = media ? { ...base, MEDIA_PUBLIC_URL: media.streamUrl } : base;
  const [api, worker, browser] = await Promise.all([
    startApi('api', env, 'compiled'),
    startWorker('worker', { ...env, ...workerEnv }, 'compiled'),
    launchBrowser(extras.browserArgs),
  ]);
  return {
    database,
    deps,
    demo,
    api,
    worker,
    media,
    env,
    browser,
    output: () =>
      `--- api\n${api.output()}\n--- worker\n${worker.output()}` +
      (media ? `\n--- media\n${media.output()}` : ''),
    async newPage(options = {}) {
      const context = await browser.newContext({ ...options, baseURL: api.url });
      return { context, page: await context.newPage() };
    },
    async stop() {
      await browser.close();
      await stopAll([api, worker, ...(media ? [media] : [])]);
      await database.drop();
    },
  };
}

export async function signIn(page: Page, email: string, password: string) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Signs the page in as the demo user, and waits for the dashboard's first page. */
export async function signInAsDemo(page: Page, stack: Pick<DashboardStack, 'demo'>): Promise<void> {
  await page.goto('/app/sign-in');
  await signIn(page, stack.demo.login.email, stack.demo.login.password);
  await page.waitForURL('**/app/calls');
}

/**
 * Saves the page as `docs/images/dashboard-<name>.jpg` when DASHBOARD_SCREENSHOTS is set (how the
 * screenshots in docs/dashboard.md are made: `DASHBOARD_SCREENSHOTS=1 pnpm --filter @voice/e2e-tests
 * test`); does nothing otherwise.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!process.env.DASHBOARD_SCREENSHOTS) return;
  await page.screenshot({
    path: fileURLToPath(new URL(`../../../docs/images/dashboard-${name}.jpg`, import.meta.url)),
    type: 'jpeg',
    quality: 80,
    fullPage: false,
  });
}
