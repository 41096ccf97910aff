import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import {
  addPhoneNumber,
  createAccount,
  createAgent,
  createCampaign,
  CreateCampaignInput,
  DEMO,
} from '@voice/core';
import { testAgentInput } from '@voice/core/testing';
import { callApi, waitFor } from '@voice/dev';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioDuration } from './browser';
import { screenshot, signInAsDemo, startDashboardStack, type DashboardStack } from './stack';

/**
 * A campaign manager's day in a real browser: an agent with a webhook, a campaign from a CSV whose bad
 * rows are shown before anything is written, its live progress to completion, one of its calls and
 * its recording, pausing and resuming another campaign, and revoking an API key. The worker's simulated
 * carrier is quick here (calls of about two seconds), so a campaign of 47 calls ends within the test.
 */

let stack: DashboardStack;
let page: Page;

const DEMO_NUMBER = '+14155550100';

beforeAll(async () => {
  stack = await startDashboardStack({
    SIMULATOR_DIAL_MS: '200',
    SIMULATOR_RING_MS: '400',
    SIMULATOR_TALK_MS: '1500',
  });
  ({ page } = await stack.newPage());
  await signInAsDemo(page, stack);
});

afterAll(async () => {
  await stack?.stop();
});

/** Fifty rows: 47 good (every fifth busy, the rest answered) and three bad ones, on lines 12, 23 and 40. */
function contactsCsv(): string {
  const lines = ['to_number,first_name,timezone'];
  for (let i = 0; i < 47; i += 1) {
    const suffix = i % 5 === 0 ? '0001' : '0009';
    lines.push(`+1415${String(200 + i)}${suffix},Caller ${i},America/New_York`);
    if (lines.length === 11) lines.push('not-a-number,Nobody,America/New_York');
    if (lines.length === 22) lines.push(`+14152000001,Again,America/New_York`);
    if (lines.length === 39) lines.push('+14159990009,Spaceman,Mars/Olympus_Mons');
  }
  return `${lines.join('\n')}\n`;
}

async function campaignCount() {
  return stack.database.db.campaign.count();
}

describe('the dashboard', () => {
  it('creates an agent with a webhook, with the API message beside a bad field and the secret never shown', async () => {
    // The voices held back (a busy api): a new agent cannot be sent before its default voice is known,
    // which would be refused for its empty voice instead. The route stays: once released, it lets every
    // request through at once.
    let releaseVoices!: () => void;
    const voicesHeld = new Promise<void>((resolve) => (releaseVoices = resolve));
    await page.route(
      (url) => url.pathname.includes('voices.list'),
      (route) => voicesHeld.then(() => route.continue()),
    );
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'New agent' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Create agent' }).isDisabled()).toBe(true);
    releaseVoices();
    await expect.poll(() => page.getByRole('button', { name: 'Create agent' }).isEnabled()).toBe(true);
    await page.getByLabel('Name', { exact: true }).fill('Appointment setter');
    await page.getByLabel('Prompt').fill('You book appointments for the clinic.');
    await page.getByLabel('Welcome message').fill('Hello {{first_name}}, this is the clinic.');
    await page.getByLabel('Language').fill('en-US');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const webhook = page.getByRole('group', { name: 'Webhook 1' });
    await webhook.getByLabel('Webhook name').fill('crm');
    await webhook.getByLabel('URL').fill('http://hooks.example/voice');
    await webhook.getByLabel('Signing secret (optional)').fill('a-very-secret-value');
    await page.getByRole('button', { name: 'Create agent' }).click();

    // The api refuses a plain-http webhook: its message is beside the URL, and nothing was written.
    await expect.poll(() => webhook.getByRole('alert').textContent()).toBe('url must use https');
    expect(await stack.database.db.agent.count({ where: { name: 'Appointment setter' } })).toBe(0);

    await webhook.getByLabel('URL').fill('https://hooks.example/voice');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.waitForURL('**/app/agents');
    await page.getByRole('link', { name: 'Appointment setter' }).click();
    const saved = page.getByRole('group', { name: 'Webhook 1' });
    await saved.getByText('A secret is set and kept unless you type a new one').waitFor();
    expect(await saved.getByLabel('URL').inputValue()).toBe('https://hooks.example/voice');
    expect(await page.content()).not.toContain('a-very-secret-value');
    // Its voice, never chosen, is the first of its language, not the catalog's first.
    const agent = await stack.database.db.agent.findFirstOrThrow({ where: { name: 'Appointment setter' } });
    const voice = await stack.database.db.voice.findUniqueOrThrow({ where: { id: agent.voiceId } });
    expect(voice.language.split('-')[0]).toBe('en');
  });

  it('previews a CSV with its bad rows before writing anything, then follows the campaign live to completion', async () => {
    const before = await campaignCount();
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Name', { exact: true }).fill('November recall');
    await page.getByLabel('Agent').selectOption({ label: 'Appointment setter' });
    await page.locator(`input[name="from_numbers"][value="${DEMO_NUMBER}"]`).check();
    await page.getByLabel('Timezone').fill('America/New_York');
    await page.getByLabel('Attempts per contact').fill('1');
    await page.getByLabel('Contacts (CSV)').setInputFiles({
      name: 'contacts.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(contactsCsv()),
    });

    await page.getByRole('status').filter({ hasText: 'rows read' }).waitFor();
    const summary = await page.getByRole('status').filter({ hasText: 'rows read' }).textContent();
    expect(summary).toContain('50 rows read: 47 accepted, 3 rejected');
    const rejected = page.getByRole('table', { name: 'Rejected rows' });
    const rows = await rejected.locator('tbody tr').allTextContents();
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(/^12/);
    // The first data row is the file's second line.
    expect(rows[1]).toMatch(/^23.*repeats line 2\b/);
    expect(rows[2]).toMatch(/^40.*timezone/);
    await screenshot(page, 'campaign-preview');
    // Nothing is written until the campaign is created.
    expect(await campaignCount()).toBe(before);

    await page.getByRole('button', { name: 'Create campaign with 47 contacts' }).click();
    await page.waitForURL(/\/app\/campaigns\/[0-9a-f-]{36}$/);
    expect(await campaignCount()).toBe(before + 1);
    await page.getByText('Live', { exact: true }).waitFor();
    await expect
      .poll(() => page.getByTestId('campaign-status').textContent(), { timeout: 90_000, interval: 500 })
      .toBe('completed');
    expect(await page.getByTestId('campaign-progress').textContent()).toBe('47 of 47 contacts done');
    // The chart was drawn from the live updates: dials and both outcomes. It reads the campaign's history
    // again when the counts move, so the last counts' chart follows the status by one request.
    const series = async () => (await page.locator('.legend li').allTextContents()).sort();
    await expect.poll(series).toEqual(['busy: 10', 'dialed: 47', 'ended: 37']);
    // The legend's swatches stay small (the chart's own size rule is not theirs), each series its colour.
    const swatches = page.locator('.legend .swatch');
    for (const box of await Promise.all((await swatches.all()).map((swatch) => swatch.boundingBox())))
      expect(box!.height).toBeLessThan(20);
    const fills = await swatches
      .locator('rect')
      .evaluateAll((rects) => rects.map((rect) => rect.getAttribute('fill')));
    expect(new Set(fills).size).toBe(fills.length);
    // The window is titled after the page, with the service's icon.
    const heading = await page.getByRole('heading', { level: 1 }).textContent();
    expect(await page.title()).toBe(`${heading} · Voice agents`);
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/app/favicon.svg');
    expect((await page.request.get('/app/favicon.svg')).status()).toBe(200);
    await screenshot(page, 'campaign-live');
  });

  it("opens one of the campaign's calls and plays its recording", async () => {
    await page.getByRole('link', { name: 'Open call' }).nth(1).click();
    await page.waitForURL(/\/app\/calls\/[0-9a-f-]{36}$/);
    // Why it ended, in words, whatever its outcome.
    await page.getByRole('heading', { name: 'Transcript' }).waitFor();
    expect(await page.locator('dt:text-is("Ended because") + dd').textContent()).toMatch(
      /^(the conversation reached its end|busy)$/,
    );
    await page.getByRole('heading', { name: 'Transcript' }).waitFor();
    await page.getByText('Hello Caller').first().waitFor();
    // What it cost, as stored when it ended, part by part.
    const callId = page.url().split('/').at(-1)!;
    const { cost } = await stack.database.db.call.findUniqueOrThrow({ where: { id: callId } });
    const stored = cost as { combined_cost: number; carrier_minutes: number };
    expect(stored.combined_cost).toBeGreaterThan(0);
    expect(await page.getByTestId('call-cost').textContent()).toBe(
      stored.combined_cost.toLocaleString('en-US', {
        style: 'currency',
        currency: 'USD',
        maximumFractionDigits: 4,
      }),
    );
    await page.getByRole('cell', { name: `${stored.carrier_minutes} min` }).waitFor();
    const duration = await audioDuration(page.locator('audio'));
    expect(duration).toBeGreaterThan(0.5);
    // A transcript line's time plays the recording from there.
    const line = (await stack.database.db.call.findUniqueOrThrow({ where: { id: callId } })).transcript as {
      timestamp_ms: number;
    }[];
    const last = line.filter((entry) => entry.timestamp_ms > 0).at(-1)!;
    await page
      .getByRole('button', { name: /^Play the recording from/ })
      .nth(line.indexOf(last))
      .click();
    const position = () => page.locator('audio').evaluate((audio: HTMLAudioElement) => audio.currentTime);
    await expect.poll(position).toBeGreaterThanOrEqual(Math.min(last.timestamp_ms / 1000, duration) - 0.25);
    // Back to the campaign, and to the contact it called.
    const call = await stack.database.db.call.findUniqueOrThrow({ where: { id: callId } });
    const contact = await stack.database.db.campaignContact.findUniqueOrThrow({
      where: { id: call.campaignContactId! },
    });
    expect(await page.locator('dt:text-is("Campaign") + dd').textContent()).toBe('November recall');
    await screenshot(page, 'call');
    await page.getByRole('link', { name: `#${contact.position} ${contact.toNumber}` }).click();
    await page.waitForURL(new RegExp(`/app/campaigns/${call.campaignId}#contact-${contact.id}$`));
    await page.locator(`tr#contact-${contact.id}.highlighted`).waitFor();
    if (process.env.DASHBOARD_SCREENSHOTS) {
      // The call list with the campaign's calls, for the docs.
      await page.goto('/app/calls');
      await page.locator('tbody tr').first().waitFor();
      await screenshot(page, 'calls');
    }
  });

  it("filters calls by campaign and number, and exports the filter's calls as CSV", async () => {
    await page.goto('/app/calls');
    const filters = page.getByRole('form', { name: 'Call filters' });
    await filters.getByLabel('Campaign').selectOption({ label: 'November recall' });
    await expect.poll(() => page.url()).toMatch(/campaign=[0-9a-f-]{36}/);
    const campaign = await stack.database.db.campaign.findFirstOrThrow({
      where: { name: 'November recall' },
    });
    const ofCampaign = await stack.database.db.call.count({ where: { campaignId: campaign.id } });
    await expect
      .poll(() => page.getByText(/calls? match\.$/).textContent())
      .toBe(`${ofCampaign} calls match.`);
    expect(await page.locator('tbody tr').count()).toBe(ofCampaign);

    // The first contact's number, by its first digits.
    const called = await stack.database.db.call.findFirstOrThrow({
      where: { campaignId: campaign.id },
      orderBy: { toNumber: 'asc' },
    });
    const prefix = called.toNumber.slice(0, -2);
    await filters.getByLabel('Number', { exact: true }).fill(prefix);
    // The filters live in the URL: the box shows ticked once the URL says so (a navigation), so the
    // test clicks and waits for the URL rather than for the box's state right after the click.
    await filters.getByLabel('Number starts with').click();
    await expect.poll(() => page.url()).toMatch(/match=prefix/);
    await expect.poll(() => filters.getByLabel('Number starts with').isChecked()).toBe(true);
    const matching = await stack.database.db.call.count({
      where: { campaignId: campaign.id, toNumber: { startsWith: prefix } },
    });
    await expect
      .poll(() => page.getByText(/calls? match\.$/).textContent())
      .toBe(`${matching} call${matching === 1 ? '' : 's'} match.`);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^calls-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = await readFile((await download.path())!, 'utf8');
    const [header, ...rows] = csv.trimEnd().split('\n');
    expect(header).toMatch(/^call_id,start_time,/);
    expect(rows).toHaveLength(matching);
    for (const row of rows) expect(row.split(',')[5]!.startsWith(prefix)).toBe(true);
  });

  it('shows analytics for a seeded set of calls: the figures worked out by hand, filters kept in the URL', async () => {
    const { db } = stack.database;
    const agent = await db.agent.create({
      data: { accountId: DEMO.accountId, name: 'Analysed', voiceId: 'he-ori' },
    });
    // Four calls on 10 March: 30 s, 90 s (an answering machine) and 60 s answered, one not answered.
    const seeded = [
      { status: 'ended', talk: 30, cost: 0.1 },
      { status: 'ended', talk: 90, cost: 0.3, machine: true },
      { status: 'no_answer', reason: 'no_answer' },
      { status: 'user_hangup', talk: 60, cost: 0.2 },
    ] as const;
    await db.call.createMany({
      data: seeded.map((call, index) => {
        const createdAt = new Date(Date.parse('2026-03-10T12:00:00Z') + index * 600_000);
        const talk = 'talk' in call ? call.talk : null;
        const connectedAt = talk === null ? null : new Date(createdAt.getTime() + 3_000);
        return {
          id: randomUUID(),
          accountId: DEMO.accountId,
          agentId: agent.id,
          fromNumber: DEMO_NUMBER,
          toNumber: `+1415300000${index}`,
          status: call.status,
          disconnectionReason: 'reason' in call ? call.reason : null,
          answeredBy: 'machine' in call ? 'machine' : connectedAt ? 'human' : null,
          createdAt,
          connectedAt,
          endedAt: connectedAt ? new Date(connectedAt.getTime() + talk! * 1000) : createdAt,
          ...('cost' in call ? { cost: { currency: 'USD', combined_cost: call.cost } } : {}),
        };
      }),
    });
    await page.goto(
      `/app/analytics?period=custom&from=2026-03-09T00:00&to=2026-03-12T00:00&agent=${agent.id}`,
    );
    const figure = (name: string) => page.locator(`[data-figure="${name}"]`).textContent();
    await expect.poll(() => figure('calls')).toBe('4');
    expect(await figure('connect_rate')).toBe('75.0 %');
    expect(await figure('voicemail_rate')).toBe('33.3 %');
    // Talk times 30, 90 and 60 s: 3:00 in all, 1:00 on average, the 90th percentile 1:30.
    expect(await figure('talk_time')).toBe('3:00');
    expect(await figure('average_duration')).toBe('1:00');
    expect(await figure('p90_duration')).toBe('1:30');
    expect(await figure('cost')).toMatch(/0\.60/);
    expect(await figure('cost_per_call')).toMatch(/0\.20/);
    const byOutcome = page.getByRole('table', { name: 'Calls by outcome' });
    expect(await byOutcome.locator('tbody tr').count()).toBe(4);
    await byOutcome.getByRole('cell', { name: 'Voicemail', exact: true }).waitFor();
    expect(await page.locator('#outcomes-caption .legend li').allTextContents()).toEqual([
      'Completed',
      'Hung up',
      'Voicemail',
      'No answer',
      'Busy',
      'Error',
      'In progress',
    ]);
    const filters = page.getByRole('form', { name: 'Analytics filters' });
    expect(await filters.getByLabel('Agent').inputValue()).toBe(agent.id);
    await filters.getByLabel('Direction').selectOption('incoming');
    await expect.poll(() => page.url()).toMatch(/direction=incoming/);
    await expect.poll(() => figure('calls')).toBe('0');
    await filters.getByLabel('Direction').selectOption('');
    await expect.poll(() => figure('calls')).toBe('4');
    // The account's time zone: the calls at 12:00-12:30 UTC started at 17:30-18:00 in India. The list is
    // the browser's own zones, where India's may go by its older name.
    const hours = page.locator('#hours-caption');
    expect(await hours.textContent()).toBe('Calls by hour of the day they started (UTC): 12:00 4');
    const india = await page.evaluate(() =>
      Intl.supportedValuesOf('timeZone').find((zone) => zone === 'Asia/Kolkata' || zone === 'Asia/Calcutta'),
    );
    await filters.getByLabel('Time zone').selectOption(india!);
    await expect
      .poll(() => hours.textContent())
      .toBe(`Calls by hour of the day they started (${india}): 17:00 3, 18:00 1`);
    expect((await db.account.findUniqueOrThrow({ where: { id: DEMO.accountId } })).timeZone).toBe(india);
    await page.reload();
    await expect.poll(() => filters.getByLabel('Time zone').inputValue()).toBe(india);
    await expect.poll(() => figure('calls')).toBe('4');
    await screenshot(page, 'analytics');
    await filters.getByLabel('Time zone').selectOption('UTC');
    await expect.poll(() => hours.textContent()).toMatch(/\(UTC\): 12:00 4$/);
  });

  it('keeps the live view true when its update stream is cut: it polls meanwhile, then reconnects', async () => {
    // Every stream the page opens is cut at once, as a proxy dropping it would.
    const cut = (route: { abort(): Promise<void> }) => route.abort();
    await page.route('**/trpc/campaigns.watch**', cut);
    const created = await callApi(stack.api.url, '/functions/v1/campaign-create', {
      method: 'POST',
      key: stack.demo.apiKey,
      body: {
        name: 'Cut stream',
        agent_id: stack.demo.agentId,
        from_numbers: [DEMO_NUMBER],
        max_concurrent_calls: 2,
        retry_policy: { max_attempts: 1 },
        contacts: Array.from({ length: 8 }, (_, i) => ({ to_number: `+1650${400 + i}0009` })),
      },
    });
    expect(created.status, created.text).toBe(201);
    const { campaign_id } = created.json as { campaign_id: string };
    await page.goto(`/app/campaigns/${campaign_id}`);
    await expect
      .poll(() => page.getByTestId('campaign-live').textContent())
      .toMatch(/^Live updates interrupted: reconnecting, and refreshing every 5 s meanwhile$/);
    // Without the stream, the page still reaches the campaign's true end by reading it.
    await expect
      .poll(() => page.getByTestId('campaign-progress').textContent(), { timeout: 90_000, interval: 500 })
      .toBe('8 of 8 contacts done');
    const done = await stack.database.db.campaignContact.count({
      where: { campaignId: campaign_id, state: 'completed' },
    });
    expect(done).toBe(8);
    // The last contact is counted done a step before the campaign records its end.
    await expect.poll(() => page.getByTestId('campaign-status').textContent()).toBe('completed');
    await page.unroute('**/trpc/campaigns.watch**', cut);

    // A running campaign whose stream comes back: the page says Live again.
    await page.route('**/trpc/campaigns.watch**', cut);
    const slow = await callApi(stack.api.url, '/functions/v1/campaign-create', {
      method: 'POST',
      key: stack.demo.apiKey,
      body: {
        name: 'Stream back',
        agent_id: stack.demo.agentId,
        from_numbers: [DEMO_NUMBER],
        max_concurrent_calls: 1,
        retry_policy: { max_attempts: 1 },
        contacts: Array.from({ length: 20 }, (_, i) => ({ to_number: `+1650${500 + i}0009` })),
      },
    });
    const slowId = (slow.json as { campaign_id: string }).campaign_id;
    await page.goto(`/app/campaigns/${slowId}`);
    await expect
      .poll(() => page.getByTestId('campaign-live').textContent())
      .toMatch(/^Live updates interrupted/);
    await page.unroute('**/trpc/campaigns.watch**', cut);
    await expect
      .poll(() => page.getByTestId('campaign-live').textContent(), { timeout: 60_000 })
      .toMatch(/^(Live|Finished)$/);
    await callApi(stack.api.url, `/functions/v1/campaign-cancel/${slowId}`, {
      method: 'POST',
      key: stack.demo.apiKey,
    });
  });

  it('flags contacts calling for longer than a call can last', async () => {
    const created = await callApi(stack.api.url, '/functions/v1/campaign-create', {
      method: 'POST',
      key: stack.demo.apiKey,
      body: {
        name: 'Stuck contact',
        agent_id: stack.demo.agentId,
        from_numbers: [DEMO_NUMBER],
        contacts: [{ to_number: '+16506000009' }],
        draft: true,
      },
    });
    expect(created.status, created.text).toBe(201);
    const { campaign_id } = created.json as { campaign_id: string };
    // A contact left `calling` two hours ago (the reliability checks would settle it; the page shows it).
    const contact = await stack.database.db.campaignContact.findFirstOrThrow({
      where: { campaignId: campaign_id },
    });
    await stack.database.db.campaignContact.update({
      where: { id: contact.id },
      data: { state: 'calling', updatedAt: new Date(Date.now() - 2 * 3_600_000) },
    });
    await page.goto(`/app/campaigns/${campaign_id}`);
    const alert = page.locator('.anomaly');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(
      /^1 contact has been calling for longer than a call can last \(61 min/,
    );
    expect(await alert.textContent()).toContain('#1 +16506000009');
  });

  it('pauses and resumes a second campaign', async () => {
    const created = await callApi(stack.api.url, '/functions/v1/campaign-create', {
      method: 'POST',
      key: stack.demo.apiKey,
      body: {
        name: 'Slow and steady',
        agent_id: stack.demo.agentId,
        from_numbers: [DEMO_NUMBER],
        max_concurrent_calls: 1,
        retry_policy: { max_attempts: 1 },
        contacts: Array.from({ length: 30 }, (_, i) => ({ to_number: `+1650${300 + i}0009` })),
      },
    });
    expect(created.status, created.text).toBe(201);
    const { campaign_id } = created.json as { campaign_id: string };
    await page.goto(`/app/campaigns/${campaign_id}`);
    await expect.poll(() => page.getByTestId('campaign-status').textContent()).toBe('running');
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => page.getByTestId('campaign-status').textContent()).toBe('paused');
    expect((await stack.database.db.campaign.findUniqueOrThrow({ where: { id: campaign_id } })).status).toBe(
      'paused',
    );
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => page.getByTestId('campaign-status').textContent()).toBe('running');
  });

  it('creates a campaign with its schedule, calling windows, ring time and retry policy as set', async () => {
    await page.goto('/app/campaigns/new');
    await page.getByLabel('Name', { exact: true }).fill('Set by hand');
    await page.getByLabel('Agent').selectOption(stack.demo.agentId);
    await page.locator(`input[name="from_numbers"][value="${DEMO_NUMBER}"]`).check();
    await page.getByLabel('Timezone').fill('Europe/London');
    await page.getByLabel('Ring time (seconds)').fill('25');
    await page.getByLabel('Start at').fill('2031-03-02T09:30');
    await page.getByRole('button', { name: 'Add a calling window' }).click();
    const window = page.getByRole('group', { name: 'Calling window 1' });
    await window.getByLabel('Fri').uncheck();
    await window.getByLabel('Sat').check();
    await window.getByLabel('From').fill('10:00');
    await window.getByLabel('to', { exact: true }).fill('16:30');
    const retries = page.getByRole('group', { name: 'Call again after' });
    await retries.getByLabel('Busy').uncheck();
    await retries.getByLabel('Answering machine').check();
    await page.getByLabel('Attempts per contact').fill('2');
    await page.getByLabel('Wait before calling again (minutes)').fill('15');
    await page.getByLabel('Save as a draft (start it later)').check();
    await page.getByRole('button', { name: /^Create campaign/ }).click();
    await page.waitForURL(/\/app\/campaigns\/[0-9a-f-]{36}$/);
    const created = await stack.database.db.campaign.findFirstOrThrow({ where: { name: 'Set by hand' } });
    expect(created).toMatchObject({
      status: 'draft',
      timezone: 'Europe/London',
      ringTimeoutSeconds: 25,
      callingWindows: [{ days: ['mon', 'tue', 'wed', 'thu', 'sat'], start: '10:00', end: '16:30' }],
      retryOn: ['no_answer', 'voicemail'],
      maxAttempts: 2,
      retryDelaySeconds: 900,
    });
    // The browser's time, as the page said: the start is that local time as an instant.
    const browserStart = await page.evaluate(() => new Date('2031-03-02T09:30').getTime());
    expect(created.startAt?.getTime()).toBe(browserStart);

    // The contacts file for an agent whose texts use variables: a template with their columns, and a
    // preview of the first rows' texts filled, warning of a variable no column fills.
    const agent = await createAgent(
      stack.deps,
      testAgentInput(DEMO.accountId, {
        name: 'Renewals',
        welcome_message: 'Hello {{first_name}}, this is about your {{plan}} plan.',
        prompt: 'Offer {{first_name}} the renewal of the {{plan}} plan before {{deadline}}.',
        variables_provided: [{ name: 'deadline', description: 'Last day', default: 'Friday' }],
      }),
    );
    await page.goto('/app/campaigns/new');
    await page.getByLabel('Agent').selectOption(agent.agent_id);
    const [template] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download a CSV template for Renewals' }).click(),
    ]);
    expect(await readFile((await template.path())!, 'utf8')).toBe(
      'to_number,timezone,first_name,plan,deadline\n+14155550123,America/New_York,,,Friday\n',
    );
    await page.getByLabel('Contacts (CSV)').setInputFiles({
      name: 'renewals.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('to_number,first_name\n+16505550111,Maya\n+16505550112,Omer\n'),
    });
    await page.getByText('Hello Maya, this is about your {{plan}} plan.').waitFor();
    await page.getByText('Offer Omer the renewal of the {{plan}} plan before Friday.').waitFor();
    expect(await page.locator('.contacts-preview [role="alert"]').textContent()).toMatch(
      /^No column fills \{\{plan\}\}: the agent would say it as written/,
    );

    // A window that ends before it starts is refused beside it, and nothing is written.
    await page.goto('/app/campaigns/new');
    await page.getByLabel('Name', { exact: true }).fill('Backwards');
    await page.getByLabel('Agent').selectOption(stack.demo.agentId);
    await page.locator(`input[name="from_numbers"][value="${DEMO_NUMBER}"]`).check();
    await page.getByRole('button', { name: 'Add a calling window' }).click();
    const backwards = page.getByRole('group', { name: 'Calling window 1' });
    await backwards.getByLabel('From').fill('18:00');
    await backwards.getByLabel('to', { exact: true }).fill('08:00');
    await page.getByRole('button', { name: /^Create campaign/ }).click();
    await expect.poll(() => backwards.getByRole('alert').textContent()).toBe('end must be after start');
    expect(await stack.database.db.campaign.count({ where: { name: 'Backwards' } })).toBe(0);
  });

  it('adds a number and releases it; a number a campaign dials from is refused, with the reason', async () => {
    await page.getByRole('link', { name: 'Numbers' }).click();
    const form = page.getByRole('form', { name: 'Add a phone number' });
    await form.getByLabel('Phone number').fill('+14155550777');
    await form.getByRole('button', { name: 'Add number' }).click();
    await page.getByRole('cell', { name: '+1 415 555 0777', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Release +1 415 555 0777' }).click();
    await page
      .getByRole('group', { name: /Release \+1 415 555 0777\?/ })
      .getByRole('button', { name: 'Release' })
      .click();
    await expect.poll(() => page.getByRole('cell', { name: '+1 415 555 0777', exact: true }).count()).toBe(0);
    expect(await stack.database.db.phoneNumber.count({ where: { number: '+14155550777' } })).toBe(0);

    // Added over REST, and a draft campaign dials from it.
    const added = await callApi(stack.api.url, '/functions/v1/phone-number-add', {
      method: 'POST',
      key: stack.demo.apiKey,
      body: { phone_number: '+14155550778', display_name: 'Spring line' },
    });
    expect(added.status, added.text).toBe(201);
    const draft = await callApi(stack.api.url, '/functions/v1/campaign-create', {
      method: 'POST',
      key: stack.demo.apiKey,
      body: {
        name: 'Spring draft',
        agent_id: stack.demo.agentId,
        from_numbers: ['+14155550778'],
        contacts: [{ to_number: '+16505550778' }],
        draft: true,
      },
    });
    expect(draft.status, draft.text).toBe(201);
    await page.reload();
    await page.getByRole('button', { name: 'Release +1 415 555 0778' }).click();
    await page
      .getByRole('group', { name: /Release \+1 415 555 0778\?/ })
      .getByRole('button', { name: 'Release' })
      .click();
    await expect
      .poll(() => page.getByRole('alert').first().textContent())
      .toBe(
        'Phone number +14155550778 is a from number of campaign(s) that have not ended: "Spring draft"; cancel them or let them finish first',
      );
    expect(await stack.database.db.phoneNumber.count({ where: { number: '+14155550778' } })).toBe(1);
  });

  it('creates an API key, shows it once, and revokes it', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Key name').fill('Nightly export');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-api-key').textContent())!;
    expect(key).toMatch(/^vk_live_/);
    const works = await callApi(stack.api.url, '/functions/v1/agent-list', { key });
    expect(works.status).not.toBe(401);

    await page.getByRole('button', { name: 'Revoke Nightly export' }).click();
    await page
      .getByRole('group', { name: /Revoke Nightly export\?/ })
      .getByRole('button', { name: 'Revoke' })
      .click();
    await page.getByRole('cell', { name: /^Revoked/ }).waitFor();
    await waitFor('the revoked key to be refused', 5_000, async () => {
      const refused = await callApi(stack.api.url, '/functions/v1/agent-list', { key });
      return refused.status === 401;
    });
    // Shown once: after leaving the page it is nowhere to be seen, nor kept by the browser. The
    // calls page is loaded on demand, and until it shows, the router keeps the page being left:
    // going back before then would not have left it.
    await page.getByRole('link', { name: 'Calls' }).click();
    await page.getByRole('heading', { name: 'Calls', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('cell', { name: 'Nightly export' }).waitFor();
    expect(await page.content()).not.toContain(key);
    const stored = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    );
    expect(stored).not.toContain(key);
  });

  it("shows not-found for another account's ids in a URL", async () => {
    const other = await createAccount(stack.deps, { name: 'Someone else' });
    const agent = await createAgent(stack.deps, testAgentInput(other.account.id, { name: 'Not yours' }));
    await addPhoneNumber(stack.deps, { accountId: other.account.id, phone_number: '+16505550100' });
    const campaign = await createCampaign(stack.deps, {
      accountId: other.account.id,
      ...CreateCampaignInput.parse({
        name: 'Not yours',
        agent_id: agent.agent_id,
        from_numbers: ['+16505550100'],
        draft: true,
      }),
    });
    const call = await stack.database.db.call.create({
      data: {
        id: randomUUID(),
        accountId: other.account.id,
        agentId: agent.agent_id,
        fromNumber: '+16505550100',
        toNumber: '+16505550199',
        summary: 'Not yours',
      },
    });
    for (const path of [
      `/app/agents/${agent.agent_id}`,
      `/app/campaigns/${campaign.body.campaign_id}`,
      `/app/calls/${call.id}`,
    ]) {
      await page.goto(path);
      await page.getByRole('heading', { name: 'Not found' }).waitFor();
      expect(await page.content()).not.toContain('Not yours');
    }
  });
});
