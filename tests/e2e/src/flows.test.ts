import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TranscriptEntry } from '@voice/core';
import { startHttpsEndpoint, type HttpsEndpoint } from '@voice/core/testing';
import { demoModel, startLlmEmulator, type LlmEmulator } from '@voice/provider-emulators';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, signInAsDemo, startDashboardStack, type DashboardStack } from './stack';

/**
 * A flow agent built in the dashboard, in Chromium: the appointment template on the canvas, its calendar
 * function pointed at the customer's HTTPS endpoint, a condition changed, an unreachable node flagged by
 * validation and removed, the flow published (version 2), tried by text chat (the path, the variables,
 * the function call), then a 10-contact campaign with it on the simulated carrier.
 */

let stack: DashboardStack;
let page: Page;
let llm: LlmEmulator;
let calendar: HttpsEndpoint;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'flows-e2e-'));
  calendar = await startHttpsEndpoint(() => ({
    status: 200,
    body: JSON.stringify({ available: false, alternative_date: '2026-12-03' }),
  }));
  await writeFile(join(dir, 'ca.pem'), calendar.ca);
  // The demo's model reads the caller predictably: a name after "my name is", an ISO date, a yes.
  llm = await startLlmEmulator({ reply: demoModel });
  stack = await startDashboardStack(
    { SIMULATOR_DIAL_MS: '200', SIMULATOR_RING_MS: '400', SIMULATOR_TALK_MS: '1500' },
    {
      env: {
        OPENAI_API_KEY: 'sk-e2e',
        OPENAI_BASE_URL: llm.baseUrl,
        // The customer's calendar: on loopback, with a certificate the api trusts as a public one.
        WEBHOOK_ALLOWED_HOSTS: calendar.host,
        NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
      },
    },
  );
  ({ page } = await stack.newPage());
  await signInAsDemo(page, stack);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await llm?.stop();
  await calendar?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the flow builder', () => {
  let agentId = '';

  it('builds the appointment flow from its template, flags an unreachable node, and publishes version 2', async () => {
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'New flow agent' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Clinic booking');
    await page.getByLabel('Appointment booking').check();
    await page.getByRole('button', { name: 'Create and open the builder' }).click();
    await page.waitForURL(/\/app\/agents\/[0-9a-f-]{36}\/flow$/);
    agentId = /agents\/([0-9a-f-]{36})\/flow/.exec(page.url())![1]!;
    const canvas = page.getByLabel('Flow canvas');
    await expect.poll(() => canvas.locator('.react-flow__node').count()).toBe(8);
    await page.getByText('Version 1 · as published').waitFor();

    // The calendar function goes to the customer's endpoint, signed.
    await page.getByRole('button', { name: 'Edit node Check the calendar' }).click();
    const fn = page.getByRole('region', { name: 'Node Check the calendar' });
    await fn.getByLabel('URL (HTTPS)').fill(`${calendar.url}/availability`);
    await fn.getByLabel('Signing secret (write-only)').fill('whsec_ZTJlIGZsb3cgc2lnbmluZyBzZWNyZXQ=');

    // A condition changed: what the caller means to accept the other date.
    await page.getByRole('button', { name: 'Edit edge Offer another date → Confirm the other date' }).click();
    const edge = page.getByRole('region', { name: 'Edge offer-accepted' });
    await edge
      .getByLabel('What the caller means (the model decides)')
      .fill('The caller says yes to the other date');

    // A node nothing leads to is flagged on the canvas once validated, and publishing waits for it.
    await page.getByLabel('Node kind').selectOption('say');
    await page.getByRole('button', { name: 'Add node' }).click();
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.getByRole('status').filter({ hasText: '2 problem(s)' }).waitFor();
    const flagged = canvas.locator('.react-flow__node').filter({ has: page.locator('.flow-node-problems') });
    expect(await flagged.count()).toBe(1);
    expect(await flagged.locator('strong').textContent()).toBe('Say');
    expect(await flagged.locator('.flow-node-problems').textContent()).toBe('2 problems');
    expect(await page.getByRole('region', { name: 'Problems' }).textContent()).toContain(
      'say: Say cannot be reached from the start',
    );
    expect(await page.getByRole('button', { name: 'Publish' }).isDisabled()).toBe(true);
    await screenshot(page, 'flow-builder-problems');
    await page.getByRole('region', { name: 'Node Say' }).getByRole('button', { name: 'Delete node' }).click();
    await page.getByText('None: the flow can be published.').waitFor();

    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Version 2 · as published').waitFor();
    const row = await stack.database.db.agent.findUniqueOrThrow({ where: { id: agentId } });
    expect(row.version).toBe(2);
    expect(JSON.stringify(row.flowDefinition)).toContain('The caller says yes to the other date');
    // The secret is kept sealed, and the page never shows it again.
    expect(JSON.stringify(row.flowDefinition)).not.toContain('whsec_ZTJlIGZsb3cgc2lnbmluZyBzZWNyZXQ=');
    expect(await page.content()).not.toContain('whsec_ZTJlIGZsb3cgc2lnbmluZyBzZWNyZXQ=');
  });

  it('tests the flow by text chat: the path, the variables and the function call as it goes', async () => {
    const chat = page.getByRole('region', { name: 'Test by text chat' });
    await chat.getByRole('button', { name: 'Start the chat' }).click();
    await chat.getByText('May I have your name and the date you would like?').waitFor();
    await chat.getByLabel('The caller says').fill('Hi, my name is Dana, and 2026-12-01 please');
    await chat.getByRole('button', { name: 'Send' }).click();
    await chat.getByText('Would 2026-12-03 work for you instead?').waitFor();
    const where = chat.getByRole('definition').first();
    expect(await where.textContent()).toBe('ask_details → check_calendar → offer_other');
    expect(await chat.getByLabel('Where the chat is').textContent()).toContain('name = Dana');
    expect(await chat.getByLabel('Function calls').textContent()).toContain('"date": "2026-12-01"');
    expect(calendar.received).toHaveLength(1);
    expect(calendar.received[0]!.headers['webhook-signature']).toMatch(/^v1,/);

    await chat.getByLabel('The caller says').fill('Yes, that works');
    await chat.getByRole('button', { name: 'Send' }).click();
    await chat.getByText('Thank you Dana, you are booked for 2026-12-03. Goodbye!').waitFor();
    expect(await where.textContent()).toBe('ask_details → check_calendar → offer_other → confirm_other');
    expect(await chat.getByRole('list', { name: 'Chat' }).textContent()).toContain(
      'node: Confirm the other date',
    );
    await screenshot(page, 'flow-builder-chat');
  });

  it('runs a 10-contact campaign with the flow on the simulated carrier, a system entry at each node', async () => {
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Flow bookings');
    await page.getByLabel('Agent').selectOption({ label: 'Clinic booking (flow)' });
    await page.locator('input[name="from_numbers"][value="+14155550100"]').check();
    await page.getByLabel('Timezone').fill('America/New_York');
    await page.getByLabel('Attempts per contact').fill('1');
    const csv = ['to_number', ...Array.from({ length: 10 }, (_, i) => `+1415${300 + i}0009`)].join('\n');
    await page
      .getByLabel('Contacts (CSV)')
      .setInputFiles({ name: 'contacts.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Create campaign with 10 contacts' }).click();
    await page.waitForURL(/\/app\/campaigns\/[0-9a-f-]{36}$/);
    await expect
      .poll(() => page.getByTestId('campaign-status').textContent(), { timeout: 90_000, interval: 500 })
      .toBe('completed');
    expect(await page.getByTestId('campaign-progress').textContent()).toBe('10 of 10 contacts done');

    const calls = await stack.database.db.call.findMany({ where: { agentId } });
    expect(calls).toHaveLength(10);
    for (const call of calls) {
      expect(call.agentVersion).toBe(2);
      const transcript = call.transcript as unknown as TranscriptEntry[];
      const system = transcript.filter((entry) => entry.role === 'system').map((entry) => entry.content);
      expect(system[0]).toBe('node: Ask name and date');
      expect(system).toContain('function Check the calendar: ok');
      expect(Object.keys(call.varsCollected as object)).toEqual(expect.arrayContaining(['name', 'date']));
    }
    // No simulated call asked the customer's calendar: only the chat did.
    expect(calendar.received).toHaveLength(1);

    // A call's page shows its flow's steps as system notes.
    await page.goto(`/app/calls/${calls[0]!.id}`);
    await page.getByText('node: Ask name and date').waitFor();
  });
});

describe('re-extraction', () => {
  it("changes a call's extracted values after its agent's extracted variables change, keeping the earlier analysis", async () => {
    const { db } = stack.database;
    const call = await db.call.findFirstOrThrow({
      where: { status: 'ended', agentId: { not: null }, NOT: { transcript: { equals: [] } } },
      orderBy: { createdAt: 'asc' },
    });
    const before = call.varsExtracted as Record<string, string>;
    expect(before).not.toHaveProperty('callback_day');
    await db.agent.update({
      where: { id: call.agentId! },
      data: {
        variablesExtracted: [{ name: 'callback_day', description: 'When to call back', required: true }],
      },
    });
    await page.goto(`/app/calls/${call.id}`);
    await page.getByRole('heading', { name: 'Analysis' }).waitFor();
    await page.getByRole('button', { name: 'Re-extract' }).click();
    // The demo model finds a required variable as "Tuesday morning".
    await expect
      .poll(() => page.getByTestId('vars-extracted').textContent())
      .toBe('callback_dayTuesday morning');
    expect((await db.call.findUniqueOrThrow({ where: { id: call.id } })).varsExtracted).toEqual({
      callback_day: 'Tuesday morning',
    });
    await page.getByText('Earlier analyses (1)').click();
    await page.getByText(`by ${stack.demo.login.email}`).waitFor();
    expect(await db.callAnalysisHistory.count({ where: { callId: call.id } })).toBe(1);
  });
});

describe('a flow built by hand', () => {
  it('builds a flow from a blank one by typing into every kind of field, places new nodes apart, and runs it', async () => {
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'New flow agent' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Typed by hand');
    await page.getByLabel('A blank flow').check();
    await page.getByRole('button', { name: 'Create and open the builder' }).click();
    await page.waitForURL(/\/app\/agents\/[0-9a-f-]{36}\/flow$/);
    const agentId = /agents\/([0-9a-f-]{36})\/flow/.exec(page.url())![1]!;
    const canvas = page.getByLabel('Flow canvas');
    await expect.poll(() => canvas.locator('.react-flow__node').count()).toBe(2);

    // Everything below is typed key by key, as a user does, never filled at once.
    const type = async (field: ReturnType<Page['getByLabel']>, text: string) => {
      await field.clear();
      await field.pressSequentially(text);
      expect(await field.inputValue()).toBe(text);
    };
    const add = async (kind: string, panelName: string) => {
      await page.getByLabel('Node kind').selectOption(kind);
      await page.getByRole('button', { name: 'Add node' }).click();
      return page.getByRole('region', { name: `Node ${panelName}` });
    };

    // An ask node: its Id, and three variables (a choice among them, its choices a comma list).
    const ask = await add('ask', 'Ask');
    await type(ask.getByLabel('Id'), 'ask_details');
    await ask.getByRole('button', { name: 'Add variable' }).click();
    await ask.getByRole('button', { name: 'Add variable' }).click();
    const variable = (index: number) => ask.getByRole('group').filter({ hasText: 'Description' }).nth(index);
    await type(variable(0).getByLabel('Name'), 'name');
    await type(variable(1).getByLabel('Name'), 'date');
    await variable(1).getByLabel('Type').selectOption('date');
    await type(variable(2).getByLabel('Name'), 'part');
    await variable(2).getByLabel('Type').selectOption('choice');
    await type(variable(2).getByLabel('Choices (comma separated)'), 'morning, afternoon, evening');
    await variable(2).getByLabel('Required').uncheck();
    await type(ask.getByLabel('Times to ask before the fallback'), '3');

    // A function node: its URL, the variables it sends, the response fields it keeps, its time limit.
    const fn = await add('function', 'Function');
    await type(fn.getByLabel('Id'), 'check_date');
    await type(fn.getByLabel('URL (HTTPS)'), `${calendar.url}/availability`);
    await type(fn.getByLabel('Variables sent (comma separated)'), 'name, date');
    await type(
      fn.getByLabel('Response fields kept (one per line: variable = $.json.path)'),
      'available = $.available\nalternative = $.alternative_date',
    );
    await type(fn.getByLabel('Time limit (ms)'), '5000');

    // An end node whose words use a variable from the response.
    const offer = await add('end', 'End');
    await type(offer.getByLabel('Id'), 'offer');
    await type(
      offer.getByLabel('Words ({{variable}} fills in a value)'),
      'Sorry, {{alternative}} is free instead.',
    );

    // No node was put on another.
    const boxes = await canvas
      .locator('.react-flow__node')
      .evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().toJSON() as DOMRect));
    expect(boxes).toHaveLength(5);
    for (const [i, a] of boxes.entries())
      for (const b of boxes.slice(i + 1))
        expect(a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top).toBe(true);

    // The edges: through the list's form, then a rule typed on the function's success edge.
    const list = page.getByRole('region', { name: 'Flow as a list' });
    await list.getByRole('button', { name: 'Edit edge Greeting → Goodbye' }).click();
    await page
      .getByRole('region', { name: 'Edge greeting-goodbye' })
      .getByRole('button', { name: 'Delete edge' })
      .click();
    const connectForm = page.getByRole('form', { name: 'Connect two nodes' });
    for (const [from, to] of [
      ['greeting', 'ask_details'],
      ['ask_details', 'check_date'],
      ['check_date', 'offer'],
      ['check_date', 'goodbye'],
    ]) {
      await connectForm.getByLabel('From').selectOption(from!);
      await connectForm.getByLabel('To').selectOption(to!);
      await connectForm.getByRole('button', { name: 'Connect' }).click();
    }
    await list.getByRole('button', { name: 'Edit edge Function → End' }).click();
    const edge = page.getByRole('region', { name: 'Edge check_date-offer' });
    await edge.getByLabel('Taken when').selectOption('rule');
    await type(edge.getByLabel('Rule'), 'available == false');

    await page.getByRole('button', { name: 'Validate' }).click();
    await page.getByText('None: the flow can be published.').waitFor();
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Version 2 · as published').waitFor();
    const row = await stack.database.db.agent.findUniqueOrThrow({ where: { id: agentId } });
    const flow = row.flowDefinition as {
      nodes: { id: string; variables?: { name: string; choices?: string[] }[]; function?: unknown }[];
      edges: { from: string; to: string; condition: unknown }[];
    };
    expect(flow.nodes.map((node) => node.id)).toEqual([
      'greeting',
      'goodbye',
      'ask_details',
      'check_date',
      'offer',
    ]);
    expect(flow.nodes[2]!.variables!.map((v) => v.name)).toEqual(['name', 'date', 'part']);
    expect(flow.nodes[2]!.variables![2]!.choices).toEqual(['morning', 'afternoon', 'evening']);
    expect(flow.nodes[3]!.function).toMatchObject({
      url: `${calendar.url}/availability`,
      body_variables: ['name', 'date'],
      response: [
        { variable: 'available', path: '$.available' },
        { variable: 'alternative', path: '$.alternative_date' },
      ],
      timeout_ms: 5000,
    });
    expect(flow.edges).toContainEqual({
      id: 'check_date-offer',
      from: 'check_date',
      to: 'offer',
      condition: { type: 'rule', rule: 'available == false' },
    });

    // It runs: the chat reaches the calendar with what the caller said, and the rule's way out.
    const asked = calendar.received.length;
    const chat = page.getByRole('region', { name: 'Test by text chat' });
    await chat.getByRole('button', { name: 'Start the chat' }).click();
    await chat.getByText('What would you like?').waitFor();
    await chat.getByLabel('The caller says').fill('My name is Dana, 2026-12-01 please');
    await chat.getByRole('button', { name: 'Send' }).click();
    await chat.getByText('Sorry, 2026-12-03 is free instead.').waitFor();
    expect(calendar.received).toHaveLength(asked + 1);
    expect(JSON.parse(calendar.received.at(-1)!.body).args).toEqual({ name: 'Dana', date: '2026-12-01' });
  });
});
