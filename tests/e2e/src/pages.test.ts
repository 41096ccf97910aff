import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createAgent, DEMO, openWebhookSecrets } from '@voice/core';
import { testAgentInput } from '@voice/core/testing';
import { callApi, waitFor } from '@voice/dev';
import type { ConsoleMessage, Page, Request, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioDuration } from './browser';
import { screenshot, signInAsDemo, startDashboardStack, type DashboardStack } from './stack';

/**
 * The rest of the dashboard in a real browser: editing an agent (variables, webhooks that keep their
 * secrets, a voice sample, duplication), the do-not-call list, phone numbers, test contacts, a call's
 * timeline; then every page checked by axe-core at desktop and phone widths, and used by keyboard.
 */

let stack: DashboardStack;
let page: Page;
let callId: string;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

beforeAll(async () => {
  stack = await startDashboardStack({
    SIMULATOR_DIAL_MS: '200',
    SIMULATOR_RING_MS: '400',
    SIMULATOR_TALK_MS: '1500',
  });
  // The axe script is injected into the page, which the dashboard's CSP would (rightly) refuse.
  ({ page } = await stack.newPage({ bypassCSP: true }));
  await signInAsDemo(page, stack);
});

afterAll(async () => {
  await stack?.stop();
});

const db = () => stack.database.db;

describe('agents', () => {
  it("edits an agent's variables and webhooks: a bad field is refused beside it, the webhook keeps its secret", async () => {
    const agent = await createAgent(
      stack.deps,
      testAgentInput(DEMO.accountId, {
        name: 'Renewals',
        webhooks: [{ name: 'crm', url: 'https://hooks.example/a', secret: 'kept-secret-value' }],
      }),
    );
    const [before] = await db().agentWebhook.findMany({ where: { agentId: agent.agent_id } });
    await page.goto(`/app/agents/${agent.agent_id}`);
    const webhook = page.getByRole('group', { name: 'Webhook 1' });
    await webhook.getByText('A secret is set and kept unless you type a new one').waitFor();
    await webhook.getByLabel('URL').fill('https://hooks.example/b');
    // The URL takes the row's room rather than a field's default width; Duplicate sits on one line.
    expect((await webhook.getByLabel('URL').boundingBox())!.width).toBeGreaterThan(320);
    // Both boxes from one layout: read one after the other, the page could grow above the form between
    // the two reads (what it loads after the agent).
    const duplicate = page.getByRole('form', { name: 'Duplicate agent' });
    await duplicate.getByLabel('Name of the copy').waitFor();
    const misalignment = await duplicate.evaluate((form) => {
      const field = form.querySelector('input')!.getBoundingClientRect();
      const button = form.querySelector('button')!.getBoundingClientRect();
      return Math.abs(field.bottom - button.bottom);
    });
    expect(misalignment).toBeLessThan(4);
    await page.getByRole('button', { name: 'Add given variable' }).click();
    const given = page.getByRole('group', { name: 'Given variable 1' });
    await given.getByLabel('Variable name').fill('first_name');
    await given.getByLabel('Default').fill('there');
    await page.getByRole('button', { name: 'Add extracted variable' }).click();
    const extracted = page.getByRole('group', { name: 'Extracted variable 1' });
    await extracted.getByLabel('Variable name').fill('2nd_slot');
    await page.getByRole('button', { name: 'Save agent' }).click();

    await expect.poll(() => extracted.getByRole('alert').textContent()).toMatch(/^must be an identifier/);
    const unchanged = await db().agent.findUniqueOrThrow({
      where: { id: agent.agent_id },
      include: { webhooks: true },
    });
    expect([unchanged.version, unchanged.webhooks[0]!.url]).toEqual([1, 'https://hooks.example/a']);

    await extracted.getByLabel('Variable name').fill('slot');
    await extracted.getByLabel('Required').check();
    await page.getByRole('button', { name: 'Save agent' }).click();
    await page.waitForURL('**/app/agents');
    const saved = await db().agent.findUniqueOrThrow({
      where: { id: agent.agent_id },
      include: { webhooks: true },
    });
    expect(saved.variablesProvided).toEqual([{ name: 'first_name', description: '', default: 'there' }]);
    expect(saved.variablesExtracted).toEqual([{ name: 'slot', description: '', required: true }]);
    const [after] = saved.webhooks;
    expect([after!.id, after!.url]).toEqual([before!.id, 'https://hooks.example/b']);
    expect(openWebhookSecrets(stack.deps.config, { secret: after!.secret, headers: {} }).secret).toBe(
      'kept-secret-value',
    );
  });

  it("plays the chosen voice's sample, spoken by the server's text-to-speech", async () => {
    await page.goto('/app/agents/new');
    await page.getByLabel('Voice').selectOption('Steve');
    await page.getByLabel('Language').fill('en-US');
    await page.getByRole('button', { name: 'Play sample' }).click();
    const audio = page.getByLabel(/^Steve saying: Hello/);
    const duration = await audioDuration(audio);
    expect(duration).toBeGreaterThan(1);
  });

  it("sets an agent's turn-taking: interruption sensitivity, reminders, noise suppression, its voicemail message's kind and warm transfers, the rest kept at their defaults", async () => {
    await page.goto(`/app/agents/${DEMO.agentId}`);
    const turnTaking = page.getByRole('region', { name: 'Turn-taking' });
    await turnTaking.getByLabel(/^Interruption sensitivity/).fill('0.7');
    await turnTaking.getByLabel(/^Remind a silent caller after/).fill('6');
    await turnTaking.getByLabel('Reminders before the agent says goodbye').fill('2');
    await turnTaking.getByLabel(/^Voicemail message/).selectOption('instruction');
    await turnTaking.getByLabel("Noise suppression on the caller's audio").check();
    await turnTaking.getByLabel(/^Transfers/).selectOption('warm');
    await turnTaking.getByRole('button', { name: 'Save turn-taking' }).click();
    await turnTaking.getByRole('status').getByText('Saved.').waitFor();
    expect(
      (await db().agent.findUniqueOrThrow({ where: { id: DEMO.agentId } })).conversationSettings,
    ).toEqual({
      interruption_sensitivity: 0.7,
      responsiveness: 1,
      reminder_after_ms: 6_000,
      reminder_max_count: 2,
      voicemail_message_kind: 'instruction',
      noise_suppression: true,
      transfer_mode: 'warm',
    });
    await db().agent.update({ where: { id: DEMO.agentId }, data: { conversationSettings: {} } });
  });

  it('duplicates an agent under a new name, edits a flow agent’s settings as its next version, and opens its flow', async () => {
    await page.goto(`/app/agents/${DEMO.agentId}`);
    await page.getByLabel('Name of the copy').fill('Receptionist, evenings');
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await page.getByRole('heading', { name: 'Receptionist, evenings' }).waitFor();
    const copy = await db().agent.findFirstOrThrow({ where: { name: 'Receptionist, evenings' } });
    expect(page.url()).toContain(`/app/agents/${copy.id}`);

    // A flow agent's own settings are edited here (no prompt: its flow speaks), as its next version;
    // its flow is edited in the builder.
    await page.goto(`/app/agents/${DEMO.flowAgentId}`);
    const builder = page.getByRole('link', { name: 'Open the flow builder' });
    await builder.waitFor();
    expect(await page.getByLabel('Prompt').count()).toBe(0);
    await page.getByLabel('Welcome message').fill('Hello! This is the Demo Clinic, how can I help?');
    await page.getByLabel('When an answering machine answers').selectOption('leave_message');
    await page.getByLabel(/^Message left after the beep/).fill('Please call the Demo Clinic back.');
    await page.getByRole('button', { name: 'Save agent' }).click();
    await page.waitForURL('**/app/agents');
    const saved = await db().agent.findUniqueOrThrow({ where: { id: DEMO.flowAgentId } });
    expect([saved.version, saved.welcomeMessage, saved.voicemailAction, saved.voicemailMessage]).toEqual([
      2,
      'Hello! This is the Demo Clinic, how can I help?',
      'leave_message',
      'Please call the Demo Clinic back.',
    ]);
    await page.goto(`/app/agents/${DEMO.flowAgentId}`);
    expect(await page.getByLabel(/^Message left after the beep/).inputValue()).toBe(
      'Please call the Demo Clinic back.',
    );
    await builder.click();
    await page.waitForURL(`**/app/agents/${DEMO.flowAgentId}/flow`);
    await page.getByText('Version 2 · as published').waitFor();
    await expect.poll(() => page.getByLabel('Flow canvas').locator('.react-flow__node').count()).toBe(8);
  });
});

describe('the do-not-call list', () => {
  it('adds a number, refuses a bad one beside its field, and removes one', async () => {
    await page.getByRole('link', { name: 'Do not call' }).click();
    const form = page.getByRole('form', { name: 'Add a number' });
    await form.getByLabel('Phone number').fill('0800-NOPE');
    await form.getByRole('button', { name: 'Add number' }).click();
    await expect
      .poll(() => form.getByRole('alert').textContent())
      .toBe('must be a valid phone number in E.164 format, e.g. +14155550123');
    expect(await db().doNotCallEntry.count()).toBe(0);

    await form.getByLabel('Phone number').fill('+14155550142');
    await form.getByLabel('Reason (optional)').fill('asked on the phone');
    await form.getByRole('button', { name: 'Add number' }).click();
    await page.getByRole('cell', { name: 'asked on the phone' }).waitFor();

    await page.getByRole('button', { name: 'Remove +14155550142' }).click();
    await page.getByRole('button', { name: 'Remove', exact: true }).click();
    await page.getByText('No numbers yet.').waitFor();
    expect(await db().doNotCallEntry.count()).toBe(0);
  });

  it('imports a CSV: a bad number is named by its line and nothing is written until all are good', async () => {
    const form = page.getByRole('form', { name: 'Import a CSV' });
    const numbers = Array.from({ length: 12 }, (_, i) => `+1415777${String(1000 + i)}`);
    const withBad = ['name,phone_number', ...numbers.map((n, i) => (i === 5 ? 'Bad,12345' : `P${i},${n}`))];
    await form.getByLabel('CSV file').setInputFiles({
      name: 'dnc.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(withBad.join('\n')),
    });
    await form.getByText('dnc.csv: 12 numbers').waitFor();
    await form.getByRole('button', { name: 'Import 12 numbers' }).click();
    await expect
      .poll(() => form.getByRole('alert').textContent())
      .toBe('line 7: must be a valid phone number in E.164 format, e.g. +14155550123');
    expect(await db().doNotCallEntry.count()).toBe(0);

    const good = ['name,phone_number', ...numbers.map((n, i) => `P${i},${n}`), 'Nobody,'];
    await form.getByLabel('CSV file').setInputFiles({
      name: 'dnc.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(good.join('\n')),
    });
    await form.getByText('dnc.csv: 12 numbers, 1 lines left out').waitFor();
    await form.getByText('Line 14: no phone_number').waitFor();
    await form.getByRole('button', { name: 'Import 12 numbers' }).click();
    await form.getByText('12 added, 0 already on the list').waitFor();
    expect(await db().doNotCallEntry.count()).toBe(12);
    await page.getByRole('cell', { name: numbers[11]!, exact: true }).waitFor();
  });
});

describe('phone numbers and test contacts', () => {
  it('assigns an agent to the spare number, and unassigns it', async () => {
    const spare = DEMO.numbers[1]!;
    await page.getByRole('link', { name: 'Numbers' }).click();
    const row = page.getByRole('form', { name: `Agent of ${spare}` });
    await row.getByLabel(`Agent of ${spare}`).selectOption({ label: 'Receptionist, evenings' });
    // The list's refetch after a change comes a second late, as on a busy machine: the window between
    // the change saved and the page showing it is always open.
    await page.route(/\/trpc\/[^?]*phoneNumbers\.list/, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await route.continue();
    });
    // The list's refetch that the assignment brings (the one the route delays).
    const refetched = page.waitForResponse((response) =>
      /\/trpc\/[^?]*phoneNumbers\.list/.test(response.url()),
    );
    await row.getByRole('button', { name: 'Assign' }).click();
    const copy = await db().agent.findFirstOrThrow({ where: { name: 'Receptionist, evenings' } });
    await waitFor('the number to be assigned', 5_000, async () => {
      const number = await db().phoneNumber.findUniqueOrThrow({ where: { number: spare } });
      return number.agentId === copy.id;
    });
    // The list refetched with the assignment remounts the row's form (keyed by its agent), which resets
    // the choice: wait for it (nothing left to save) before choosing again, or the choice is undone. The
    // button is disabled while the assignment is saved too, which the database shows before the page
    // has its answer: the refetch's response comes after both.
    await refetched;
    await expect
      .poll(() => row.getByRole('button', { name: 'Assign' }).isDisabled(), { timeout: 10_000 })
      .toBe(true);
    await row.getByLabel(`Agent of ${spare}`).selectOption({ value: '' });
    await row.getByRole('button', { name: 'Unassign' }).click();
    await waitFor('the number to be unassigned', 5_000, async () => {
      const number = await db().phoneNumber.findUniqueOrThrow({ where: { number: spare } });
      return number.agentId === null;
    });
    // The only route of the suite; a delayed request still in flight finishes first.
    await page.unrouteAll({ behavior: 'wait' });
  });

  it('adds a test contact (a bad number refused beside its field) and removes it', async () => {
    await page.getByRole('link', { name: 'Test contacts' }).click();
    // The numbers page has a "Phone number" field too: the form is filled once this page is there.
    await page.getByRole('form', { name: 'Add a test contact' }).waitFor();
    await page.getByLabel('Phone number').fill('555');
    await page.getByRole('button', { name: 'Add test contact' }).click();
    await expect
      .poll(() => page.getByRole('form', { name: 'Add a test contact' }).getByRole('alert').textContent())
      .toBe('phone_number must be a valid phone number in E.164 format, e.g. +14155550123');
    expect(await db().testContact.count()).toBe(0);

    await page.getByLabel('Phone number').fill('+14155550177');
    await page.getByLabel('Whose phone (optional)').fill('QA phone');
    await page.getByRole('button', { name: 'Add test contact' }).click();
    await page.getByRole('cell', { name: 'QA phone' }).waitFor();
    expect(await db().testContact.count()).toBe(1);
    await page.getByRole('button', { name: 'Remove +14155550177' }).click();
    await page.getByRole('button', { name: 'Remove', exact: true }).click();
    await page.getByText('No test contacts yet.').waitFor();
    expect(await db().testContact.count()).toBe(0);
  });
});

describe('the other forms', () => {
  it("show the API's message beside the field for bad input, and write nothing", async () => {
    const counts = async () => ({
      keys: await db().apiKey.count(),
      numbers: await db().phoneNumber.count(),
      agents: await db().agent.count(),
    });
    const before = await counts();

    await page.goto('/app/api-keys');
    const keyForm = page.getByRole('form', { name: 'New API key' });
    await keyForm.getByLabel('Key name').fill('k'.repeat(101));
    await keyForm.getByRole('button', { name: 'Create key' }).click();
    await expect
      .poll(() => keyForm.getByRole('alert').textContent())
      .toBe('name must be at most 100 characters');

    await page.goto('/app/phone-numbers');
    const numberForm = page.getByRole('form', { name: 'Add a phone number' });
    await numberForm.getByLabel('Phone number').fill('+1415');
    await numberForm.getByRole('button', { name: 'Add number' }).click();
    await expect
      .poll(() => numberForm.getByRole('alert').textContent())
      .toMatch(/^phone_number must be a valid phone number in E\.164 format/);

    await page.goto(`/app/agents/${DEMO.agentId}`);
    const duplicateForm = page.getByRole('form', { name: 'Duplicate agent' });
    await duplicateForm.getByLabel('Name of the copy').fill('   ');
    await duplicateForm.getByRole('button', { name: 'Duplicate' }).click();
    await expect.poll(() => duplicateForm.getByRole('alert').textContent()).toBe('must not be empty');

    expect(await counts()).toEqual(before);
  });
});

describe('a call', () => {
  it("shows the call's timeline, from its creation to its end, with the caller's interruptions and backchannels", async () => {
    const dialed = await callApi(stack.api.url, '/functions/v1/call-dial', {
      method: 'POST',
      key: stack.demo.apiKey,
      body: { from_number: DEMO.numbers[0], to_number: '+16505550009' },
    });
    expect(dialed.status, dialed.text).toBe(201);
    callId = (dialed.json as { call_id: string }).call_id;
    await waitFor('the call to end', 30_000, async () => {
      const call = await db().call.findUniqueOrThrow({ where: { id: callId } });
      return call.endedAt !== null;
    });
    // What a media server stores with a live conversation; the simulated one has none.
    await db().call.update({
      where: { id: callId },
      data: {
        turnEvents: [
          { kind: 'interruption', at_ms: 400, text: 'Wait, which day?' },
          { kind: 'backchannel', at_ms: 900, text: 'Mm-hmm' },
        ],
      },
    });
    await page.goto(`/app/calls/${callId}`);
    const steps = page.locator('.timeline li strong');
    await expect.poll(() => steps.allTextContents()).toContain('Backchannel');
    const labels = await steps.allTextContents();
    expect(labels[0]).toBe('Created');
    for (const step of ['Dial sent to the carrier', 'Ringing', 'Answered'])
      expect(labels.indexOf(step)).toBeGreaterThan(0);
    expect(labels.at(-1)).toBe('Ended');
    // Placed by time: after the answer, before the end, the interruption first.
    expect(labels.indexOf('Caller interrupted')).toBeGreaterThan(labels.indexOf('Answered'));
    expect(labels.indexOf('Backchannel')).toBeGreaterThan(labels.indexOf('Caller interrupted'));
    const turns = page.locator('.timeline li.turn');
    expect(await turns.allTextContents()).toEqual([
      expect.stringMatching(/Caller interrupted · 0:00 into the call · Wait, which day\?$/),
      expect.stringMatching(/Backchannel · 0:01 into the call · Mm-hmm$/),
    ]);
  });
});

/** axe-core's serious and critical findings on the page as it is now: rule, then the elements. */
async function seriousViolations(target: Page): Promise<string[]> {
  await target.addScriptTag({ content: AXE });
  const violations = await target.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    interface AxeViolation {
      id: string;
      impact: string | null;
      nodes: { target: unknown[] }[];
    }
    return (await axe.run()).violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(
        (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
      );
  });
  return violations;
}

/** The pages whose screenshots docs/dashboard.md shows. */
const SCREENSHOTS: Record<string, string> = {
  '/app/agents': 'agents',
  [`/app/agents/${DEMO.agentId}`]: 'agent',
  '/app/do-not-call': 'do-not-call',
};

describe('every page', () => {
  const pages = () => [
    '/app/agents',
    '/app/agents/new',
    `/app/agents/${DEMO.agentId}`,
    `/app/agents/${DEMO.flowAgentId}`,
    '/app/calls',
    `/app/calls/${callId}`,
    '/app/analytics',
    '/app/campaigns',
    '/app/campaigns/new',
    '/app/phone-numbers',
    '/app/do-not-call',
    '/app/test-contacts',
    '/app/api-keys',
    '/app/knowledge',
    '/app/no-such-page',
  ];

  it('loads the shell alone first: its main chunk under 300 KB, each page (and the schemas) when opened', async () => {
    const html = await (await fetch(`${stack.api.url}/app/`)).text();
    const main = /<script type="module"[^>]* src="(\/app\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(main).toBeDefined();
    const bytes = (await (await fetch(`${stack.api.url}${main}`)).arrayBuffer()).byteLength;
    expect(bytes).toBeLessThan(300 * 1024);
    // What the first load takes besides (modulepreload): shared code, none of a page's own.
    const preloaded = [...html.matchAll(/rel="modulepreload"[^>]* href="([^"]+)"/g)].map(([, path]) => path!);
    expect(preloaded.filter((path) => /FlowBuilder|Analytics|CallView|schemas/.test(path))).toEqual([]);
  });

  it('has no serious accessibility violations (axe-core), at 1280 px and at phone width without sideways scrolling', async () => {
    const campaign = await callApi(stack.api.url, '/functions/v1/campaign-create', {
      method: 'POST',
      key: stack.demo.apiKey,
      body: {
        name: 'Checked by axe',
        agent_id: DEMO.agentId,
        from_numbers: [DEMO.numbers[0]],
        contacts: [{ to_number: '+16503000009' }],
      },
    });
    expect(campaign.status, campaign.text).toBe(201);
    const urls = [...pages(), `/app/campaigns/${(campaign.json as { campaign_id: string }).campaign_id}`];
    const found: Record<string, string[]> = {};
    // Nothing goes wrong quietly: no console error, no uncaught exception, no failed or refused request
    // (a request cut short by leaving the page is not one).
    const problems: string[] = [];
    const onConsole = (message: ConsoleMessage) => {
      if (message.type() === 'error') problems.push(`${page.url()}: console error: ${message.text()}`);
    };
    const onPageError = (error: Error) => problems.push(`${page.url()}: ${error.message}`);
    const onFailed = (request: Request) => {
      const failure = request.failure()?.errorText;
      if (failure !== 'net::ERR_ABORTED') problems.push(`${page.url()}: ${request.url()} failed: ${failure}`);
    };
    const onResponse = (response: Response) => {
      if (response.status() >= 400)
        problems.push(`${page.url()}: ${response.url()} answered ${response.status()}`);
    };
    page.on('console', onConsole);
    page.on('pageerror', onPageError);
    page.on('requestfailed', onFailed);
    page.on('response', onResponse);
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      for (const url of urls) {
        await page.goto(url);
        // The page's heading, then its data: no section still loading (not network idle, which the
        // live views' polling keeps at bay for half a second at least).
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await page.waitForFunction(() => !document.querySelector('.loading'));
        const where = `${url} @${width}px`;
        const shot = SCREENSHOTS[url];
        // At phone width, one page shows how the layout folds.
        if (shot && (width > 600 || url === '/app/do-not-call'))
          await screenshot(page, `${shot}${width < 600 ? '-phone' : ''}`);
        const violations = await seriousViolations(page);
        if (violations.length) found[where] = violations;
        // Wide tables scroll inside their own box; the page itself never scrolls sideways.
        const overflow = await page.evaluate(() => {
          const width = document.documentElement.clientWidth;
          const by = document.documentElement.scrollWidth - width;
          if (by <= 0) return null;
          // The elements that stick out (the innermost ones), to say what to fix.
          const out = [...document.querySelectorAll('body *')].filter(
            (element) =>
              element.getBoundingClientRect().right > width &&
              ![...element.children].some((child) => child.getBoundingClientRect().right > width) &&
              !element.closest('.table-scroll'),
          );
          return `scrolls sideways by ${by}px: ${out
            .slice(0, 5)
            .map((element) => `${element.tagName.toLowerCase()}.${element.className}`)
            .join(', ')}`;
        });
        if (overflow) found[where] = [...(found[where] ?? []), overflow];
        // On a wide screen every table is a table: its header row above its rows, its header cells in a row.
        if (width > 600) {
          const misplaced = await page.evaluate(() =>
            [...document.querySelectorAll('table')]
              .filter(
                (table) => table.getClientRects().length > 0 && table.tHead && table.tBodies[0]?.rows.length,
              )
              .filter((table) => {
                const head = table.tHead!.getBoundingClientRect();
                const body = table.tBodies[0]!.getBoundingClientRect();
                const tops = [...table.tHead!.querySelectorAll('th')].map(
                  (th) => th.getBoundingClientRect().top,
                );
                return head.bottom > body.top + 1 || Math.max(...tops) - Math.min(...tops) > 1;
              })
              .map((table) => table.querySelector('caption')?.textContent ?? 'a table without a caption'),
          );
          if (misplaced.length)
            found[where] = [...(found[where] ?? []), `header not above the rows in: ${misplaced.join(', ')}`];
        }
        // At phone width no table hides a column behind a sideways scroll: lists turn into cards.
        if (width < 600) {
          const clipped = await page.evaluate(() =>
            [...document.querySelectorAll('table')]
              .filter((table) => table.getClientRects().length > 0)
              .filter((table) => {
                const box = table.closest('.table-scroll') ?? table.parentElement!;
                return box.scrollWidth > box.clientWidth + 1;
              })
              .map((table) => table.querySelector('caption')?.textContent ?? 'a table without a caption'),
          );
          if (clipped.length)
            found[where] = [...(found[where] ?? []), `columns clipped in: ${clipped.join(', ')}`];
        }
      }
    }
    const { context, page: signedOut } = await stack.newPage({ bypassCSP: true });
    await signedOut.goto('/app/agents');
    await signedOut.waitForURL('**/app/sign-in**');
    const signInViolations = await seriousViolations(signedOut);
    if (signInViolations.length) found['/app/sign-in'] = signInViolations;
    await context.close();
    await page.setViewportSize({ width: 1280, height: 800 });
    page.off('console', onConsole);
    page.off('pageerror', onPageError);
    page.off('requestfailed', onFailed);
    page.off('response', onResponse);
    expect(found).toEqual({});
    expect(problems).toEqual([]);
    // Some sixty page loads, each analysed by axe-core: more work than the suite's other tests.
  }, 240_000);

  it('is usable by keyboard alone: sign in, skip to content, move between sections, confirm an action', async () => {
    const { context, page: keyboard } = await stack.newPage();
    await keyboard.goto('/app/sign-in');
    await keyboard.getByLabel('Email').waitFor();
    await keyboard.keyboard.press('Tab');
    expect(await keyboard.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('email');
    await keyboard.keyboard.type(stack.demo.login.email);
    await keyboard.keyboard.press('Tab');
    await keyboard.keyboard.type(stack.demo.login.password);
    await keyboard.keyboard.press('Enter');
    await keyboard.waitForURL('**/app/calls');
    await keyboard.getByRole('heading', { name: 'Calls', level: 1 }).waitFor();

    // The first Tab reaches the skip link, which moves focus to the page's content.
    await keyboard.keyboard.press('Tab');
    expect(await keyboard.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await keyboard.keyboard.press('Enter');
    expect(await keyboard.evaluate(() => document.activeElement?.id)).toBe('main');

    // The sections are links in the tab order.
    await keyboard.goto('/app/calls');
    await keyboard.getByRole('heading', { name: 'Calls', level: 1 }).waitFor();
    const reached: string[] = [];
    for (let i = 0; i < 12 && !reached.includes('API keys'); i += 1) {
      await keyboard.keyboard.press('Tab');
      reached.push((await keyboard.evaluate(() => document.activeElement?.textContent)) ?? '');
    }
    expect(reached).toEqual(
      expect.arrayContaining(['Agents', 'Calls', 'Campaigns', 'Do not call', 'API keys']),
    );
    await keyboard.keyboard.press('Enter');
    await keyboard.waitForURL('**/app/api-keys');

    // A key created and revoked by keyboard: the confirmation takes the focus.
    await keyboard.getByLabel('Key name').focus();
    await keyboard.keyboard.type('Keyboard key');
    await keyboard.keyboard.press('Enter');
    await keyboard.getByTestId('new-api-key').waitFor();
    await keyboard.getByRole('button', { name: 'Revoke Keyboard key' }).focus();
    await keyboard.keyboard.press('Enter');
    expect(await keyboard.evaluate(() => document.activeElement?.textContent)).toBe('Revoke');
    await keyboard.keyboard.press('Enter');
    await keyboard.getByRole('cell', { name: /^Revoked/ }).waitFor();
    await context.close();
  });
});
