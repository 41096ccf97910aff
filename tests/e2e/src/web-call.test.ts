import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rms, resample, speakPcm, writeWav } from '@voice/audio';
import { listCalls, ListCallsInput, modifyAgent, type TranscriptEntry } from '@voice/core';
import { startWebhookReceiver } from '@voice/core/testing';
import { waitFor } from '@voice/dev';
import {
  DEMO_CALLEE_LINES,
  demoModel,
  demoTranscript,
  startLlmEmulator,
  startSttEmulator,
  type LlmEmulator,
  type SttEmulator,
} from '@voice/provider-emulators';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { launchBrowser } from './browser';
import { signInAsDemo, startDashboardStack, type DashboardStack } from './stack';

/**
 * Talking to an agent from the dashboard, in Chromium, with a WAV file as the microphone (the caller's
 * words, made with eSpeak NG): the welcome heard, the caller's words answered, a hang-up; then the call
 * as every other: listed as a web call, its transcript, two-channel recording, analysis and webhook.
 * The language model and speech-to-text are their protocol emulators (the demo's conversation).
 */

let stack: DashboardStack;
let page: Page;
let llm: LlmEmulator;
let stt: SttEmulator;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let dir: string;

/** The caller's side: silence for `afterSeconds`, their first line, then silence (played once). */
async function microphoneWav(path: string, afterSeconds = 4) {
  const { sampleRate, samples } = await speakPcm(DEMO_CALLEE_LINES[0]!);
  const words = resample(samples, sampleRate, 16_000);
  const silence = (seconds: number) => new Int16Array(16_000 * seconds);
  const audio = Int16Array.from([...silence(afterSeconds), ...words, ...silence(14)]);
  await writeFile(path, writeWav(16_000, [audio]));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'web-call-e2e-'));
  const microphone = join(dir, 'caller.wav');
  await microphoneWav(microphone);
  llm = await startLlmEmulator({ reply: demoModel });
  stt = await startSttEmulator({ transcript: demoTranscript });
  receiver = await startWebhookReceiver();
  const recordings = join(dir, 'recordings');
  stack = await startDashboardStack(
    {},
    {
      env: {
        RECORDINGS_DIR: recordings,
        WEBHOOK_ALLOWED_HOSTS: receiver.host,
        OPENAI_API_KEY: 'sk-e2e',
        OPENAI_BASE_URL: llm.baseUrl,
      },
      media: { DEEPGRAM_API_KEY: 'dg-e2e', DEEPGRAM_BASE_URL: stt.url },
      browserArgs: [
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--use-file-for-fake-audio-capture=${microphone}%noloop`,
        '--autoplay-policy=no-user-gesture-required',
      ],
    },
  );
  await modifyAgent(
    { ...stack.deps, config: { ...stack.deps.config, webhookAllowedHosts: [receiver.host] } },
    {
      accountId: stack.demo.accountId,
      agentId: stack.demo.agentId,
      webhooks: [{ name: 'e2e', url: `http://${receiver.host}/hook` }],
    },
  );
  ({ page } = await stack.newPage());
  await signInAsDemo(page, stack);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await llm?.stop();
  await stt?.stop();
  receiver?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('talking to an agent from the browser', () => {
  it('hears the welcome, is answered, hangs up, and finds the call as a web call with all of a call', async () => {
    await page.goto(`/app/agents/${stack.demo.agentId}`);
    await page.getByRole('button', { name: 'Talk to this agent' }).click();
    const transcript = page.getByRole('list', { name: 'Live transcript' });
    // The welcome, the caller's words from the microphone file, and the agent's answer to them.
    await transcript.getByText(DEMO_CALLEE_LINES[0]!).waitFor({ timeout: 30_000 });
    await transcript.getByText(/Nice to meet you, Dana!/).waitFor({ timeout: 30_000 });
    await waitFor('the answer to be heard', 20_000, async () => (await heardSeconds(page)) > 3);
    // The page's keypad: keys the caller had not ended with # when hanging up are kept, not answered.
    const keypad = page.getByRole('group', { name: 'Keypad' });
    for (const key of ['4', '2']) await keypad.getByRole('button', { name: key, exact: true }).click();
    await page.getByRole('button', { name: 'Hang up' }).click();
    await page.getByRole('status').getByText('Call ended (user_hangup)').waitFor();
    // The page played seconds of the agent's speech louder than silence (its pauses not counted).
    expect(await heardSeconds(page)).toBeGreaterThan(3);
    const entries = await transcript.getByRole('listitem').allInnerTexts();
    expect(entries[0]).toMatch(/^Agent /);
    expect(entries.some((entry) => entry.startsWith('You Hi, this is Dana'))).toBe(true);

    await page.getByRole('link', { name: 'Open the call' }).click();
    const callId = page.url().split('/').at(-1)!;
    const deps = stack.deps;
    await waitFor('the call to end with its analysis', 60_000, async () => {
      const row = await deps.db.call.findUniqueOrThrow({ where: { id: callId } });
      return row.status === 'user_hangup' && row.summary !== null;
    });
    const listed = await listCalls(deps, {
      accountId: stack.demo.accountId,
      ...ListCallsInput.parse({ filter_criteria: { call_type: ['web_call'] } }),
    });
    expect(listed.calls.map((call) => [call.call_id, call.call_type])).toEqual([[callId, 'web_call']]);
    const row = await deps.db.call.findUniqueOrThrow({ where: { id: callId } });
    const stored = row.transcript as unknown as TranscriptEntry[];
    expect(stored.map((entry) => entry.role)).toEqual(expect.arrayContaining(['agent', 'caller']));
    expect(stored.at(-1)).toMatchObject({ role: 'system', content: 'keypad: 42' });
    expect(row.summary).toBe('Dana booked an appointment for Tuesday morning.');
    // Both sides are in the recording: the caller (left) and the agent (right).
    const wav = await readFile(join(dir, 'recordings', row.recordingKey!));
    const frames = (wav.length - 44) / 4;
    const left = Int16Array.from({ length: frames }, (_, i) => wav.readInt16LE(44 + i * 4));
    const right = Int16Array.from({ length: frames }, (_, i) => wav.readInt16LE(46 + i * 4));
    expect(rms(left)).toBeGreaterThan(100);
    expect(rms(right)).toBeGreaterThan(300);
    await waitFor('the call_ended webhook', 30_000, async () => receiver.received.length > 0);
    const sent = JSON.parse(receiver.received[0]!.body) as { event: string; call: Record<string, unknown> };
    expect([sent.event, sent.call.call_id, sent.call.call_type]).toEqual(['call_ended', callId, 'web_call']);
    // The call's page shows it as a web call, with its answer's latency, step by step.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: /^Web call/ }).waitFor();
    await page.getByText('Web call (browser)').waitFor();
    const bars = page.getByRole('list', { name: 'Latency of each answer' }).getByRole('listitem');
    await bars.first().waitFor();
    expect(await bars.first().getByRole('img').getAttribute('aria-label')).toMatch(
      /^Speech-to-text \d+ ms, Language model \d+ ms, Speech synthesis \d+ ms, To the line \d+ ms$/,
    );
    await page
      .getByText(/^Voice to voice: median \d+ ms, 95th percentile \d+ ms over \d+ answers?\.$/)
      .waitFor();
  });

  it('says so when the microphone is refused, and creates no call', async () => {
    const calls = () => stack.deps.db.call.count({ where: { accountId: stack.demo.accountId } });
    const before = await calls();
    const { context, page: denied } = await stack.newPage();
    // The browser refusing the microphone, as a person who clicks "Block" makes it.
    await context.addInitScript(() => {
      navigator.mediaDevices.getUserMedia = () =>
        Promise.reject(new DOMException('Permission denied', 'NotAllowedError'));
    });
    await signInAsDemo(denied, stack);
    await denied.goto(`/app/agents/${stack.demo.agentId}`);
    await denied.getByRole('button', { name: 'Talk to this agent' }).click();
    await denied
      .getByRole('alert')
      .getByText('The microphone was not allowed: allow it for this page to talk to the agent.')
      .waitFor();
    await denied.getByRole('status').getByText('No call was made').waitFor();
    // The microphone is asked for before the call is created: a refusal leaves no call behind.
    expect(await calls()).toBe(before);
    expect(await denied.getByRole('link', { name: 'Open the call' }).count()).toBe(0);
    await context.close();
  });

  it('is hung up by an operator from the call page: the caller’s page ends as the agent hanging up', async () => {
    await page.goto(`/app/agents/${stack.demo.agentId}`);
    await page.getByRole('button', { name: 'Talk to this agent' }).click();
    await page
      .getByRole('status')
      .getByText(/^Connected/)
      .waitFor({ timeout: 30_000 });
    const live = await stack.deps.db.call.findFirstOrThrow({
      where: { callType: 'web_call', conversationEndedAt: null, mediaStartedAt: { not: null } },
      orderBy: { createdAt: 'desc' },
    });
    const { context, page: operator } = await stack.newPage();
    try {
      await signInAsDemo(operator, stack);
      await operator.goto(`/app/calls/${live.id}`);
      await operator.getByRole('button', { name: 'Hang up' }).click();
      const asked = performance.now();
      await page.getByRole('status').getByText('Call ended (agent_hangup)').waitFor({ timeout: 10_000 });
      expect(performance.now() - asked).toBeLessThan(2_000);
      // The operator's page follows the call to its end.
      await operator.locator('.page-head').getByText('Agent hung up').waitFor({ timeout: 15_000 });
      expect(await operator.getByRole('button', { name: 'Hang up' }).count()).toBe(0);
      const row = await stack.deps.db.call.findUniqueOrThrow({ where: { id: live.id } });
      expect([row.status, row.conversationEndReason]).toEqual(['agent_hangup', 'agent_hangup']);
    } finally {
      await context.close();
    }
  });

  it('writes Hebrew right to left: an agent prompt and a call transcript', async () => {
    const deps = stack.deps;
    await modifyAgent(deps, {
      accountId: stack.demo.accountId,
      agentId: stack.demo.agentId,
      prompt: 'את עוזרת למטופלים לקבוע תורים.',
    });
    await page.goto(`/app/agents/${stack.demo.agentId}`);
    const direction = (locator: ReturnType<Page['locator']>) =>
      locator.evaluate((element) => getComputedStyle(element).direction);
    expect(await direction(page.getByLabel('Prompt'))).toBe('rtl');
    const call = await deps.db.call.create({
      data: {
        id: randomUUID(),
        accountId: stack.demo.accountId,
        agentId: stack.demo.agentId,
        fromNumber: '+14155550100',
        toNumber: '+14155550123',
        status: 'ended',
        transcript: [
          { role: 'agent', content: 'שלום, כאן המרפאה.', timestamp_ms: 300 },
          { role: 'caller', content: 'Hello, in English.', timestamp_ms: 2_000 },
        ],
        summary: 'המטופלת קבעה תור.',
      },
    });
    await page.goto(`/app/calls/${call.id}`);
    expect(await direction(page.getByText('שלום, כאן המרפאה.'))).toBe('rtl');
    expect(await direction(page.getByText('Hello, in English.'))).toBe('ltr');
    expect(await direction(page.getByText('המטופלת קבעה תור.'))).toBe('rtl');
  });
});

/** A welcome long enough for the caller to speak over, sentence by sentence. */
const LONG_WELCOME = [
  'Hello, this is Demo Company calling about your appointment.',
  'We have a few things to go over with you today.',
  'First, the time of your visit, which we would like to confirm.',
  'Second, what you should bring with you on the day.',
];

/** What the page's WebSocket was sent (its agent audio as `frame`s) and, in order with it, the agent lines it showed. */
type Seen = 'frame' | { event: string; name?: string; agent?: string[] };

describe('the live transcript of a web call', () => {
  it('shows a sentence only once its audio has begun, and after a barge-in and a hang-up what was stored', async () => {
    const microphone = join(dir, 'caller-over-the-agent.wav');
    // The caller speaks six seconds in: over the welcome's second sentence.
    await microphoneWav(microphone, 6);
    const browser = await launchBrowser([
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-audio-capture=${microphone}%noloop`,
      '--autoplay-policy=no-user-gesture-required',
    ]);
    onTestFinished(() => browser.close());
    const context = await browser.newContext({ baseURL: stack.api.url });
    // Everything the page's WebSocket gets, and each change of the agent lines it shows, in one order.
    await context.addInitScript(() => {
      const seen: unknown[] = [];
      (window as unknown as { seen: unknown[] }).seen = seen;
      window.WebSocket = class extends window.WebSocket {
        constructor(url: string | URL, protocols?: string | string[]) {
          super(url, protocols);
          this.addEventListener('message', ({ data }: MessageEvent) =>
            seen.push(typeof data === 'string' ? JSON.parse(data) : 'frame'),
          );
        }
      };
      let shown = '[]';
      new MutationObserver(() => {
        const agent = [
          ...document.querySelectorAll('[aria-label="Live transcript"] li.agent [dir="auto"]'),
        ].map((line) => line.textContent);
        if (JSON.stringify(agent) === shown) return;
        shown = JSON.stringify(agent);
        seen.push({ event: 'shown', agent });
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    const caller = await context.newPage();
    await signInAsDemo(caller, stack);
    await modifyAgent(stack.deps, {
      accountId: stack.demo.accountId,
      agentId: stack.demo.agentId,
      welcome_message: LONG_WELCOME.join(' '),
    });
    await caller.goto(`/app/agents/${stack.demo.agentId}`);
    await caller.getByRole('button', { name: 'Talk to this agent' }).click();
    const transcript = caller.getByRole('list', { name: 'Live transcript' });
    // The caller's words cut the welcome short and are answered; they hang up as the answer's second
    // sentence begins.
    await transcript.getByText(DEMO_CALLEE_LINES[0]!).waitFor({ timeout: 30_000 });
    await transcript.getByText(/Which day would suit you/).waitFor({ timeout: 30_000 });
    await caller.getByRole('button', { name: 'Hang up' }).click();
    await caller.getByRole('status').getByText('Call ended (user_hangup)').waitFor();
    const shown = await transcript.getByRole('listitem').allInnerTexts();

    // Each of the welcome's sentences the page showed had begun to arrive: the frames of the sentences
    // before it (their marks, `m<sentence>:<frames sent>`, the last at its end), and one of its own.
    const seen = await caller.evaluate(() => (window as unknown as { seen: Seen[] }).seen);
    const framesOf = new Map<number, number>();
    for (const item of seen) {
      const mark = item !== 'frame' && item.event === 'mark' ? /^m(\d+):(\d+)$/.exec(item.name!) : null;
      if (mark) framesOf.set(Number(mark[1]), Math.max(framesOf.get(Number(mark[1])) ?? 0, Number(mark[2])));
    }
    let frames = 0;
    const framesWhenShown = new Map<number, number>();
    for (const item of seen) {
      if (item === 'frame') frames += 1;
      else if (item.event === 'shown')
        LONG_WELCOME.forEach((sentence, index) => {
          if (item.agent!.join(' ').includes(sentence) && !framesWhenShown.has(index))
            framesWhenShown.set(index, frames);
        });
    }
    expect(framesWhenShown.size).toBeGreaterThanOrEqual(2);
    for (const [index, framesThen] of framesWhenShown) {
      const before = LONG_WELCOME.slice(0, index).reduce((sum, _, at) => sum + framesOf.get(at + 1)!, 0);
      expect(framesThen).toBeGreaterThan(before);
    }

    // The page ends showing what the call keeps: the welcome as far as it was heard, marked cut on the
    // call's page.
    await caller.getByRole('link', { name: 'Open the call' }).click();
    const callId = caller.url().split('/').at(-1)!;
    const row = await stack.deps.db.call.findUniqueOrThrow({ where: { id: callId } });
    const stored = row.transcript as unknown as TranscriptEntry[];
    expect(shown).toEqual(
      stored.map((entry) => `${entry.role === 'agent' ? 'Agent' : 'You'} ${entry.content}`),
    );
    expect(stored[0]!.content.length).toBeLessThan(LONG_WELCOME.join(' ').length);
    const cut = row.cutEntries as number[];
    expect(cut).toContain(0);
    const entries = caller.locator('ol.transcript > li');
    await entries.first().getByText('cut', { exact: true }).waitFor();
    for (const [index, entry] of (await entries.all()).entries())
      expect(await entry.getByText('cut', { exact: true }).count()).toBe(cut.includes(index) ? 1 : 0);
  });
});

/** Seconds of the agent the page says it has played. */
async function heardSeconds(page: Page): Promise<number> {
  const status = (await page.getByRole('status').first().innerText()) ?? '';
  return Number(/heard ([\d.]+) s/.exec(status)?.[1] ?? 0);
}
