import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { voiceExecutable } from '@voice/cli/testing';
import { modifyAgent } from '@voice/core';
import { demoModel, startLlmEmulator, type LlmEmulator } from '@voice/provider-emulators';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAsDemo, startDashboardStack, type DashboardStack } from './stack';

/**
 * The agent test bench end to end: scenarios from a YAML file run by the real `voice test-agent`
 * command and from the dashboard, each held by the media server as a text conversation with the demo
 * agent (the worker's agentTestWorkflow asking it on the media task queue), then graded; the verdicts
 * printed and shown. The language model is its protocol emulator, playing the demo's agent, caller and
 * grader (a criterion's quoted words must be in what the agent said). A deliberately broken prompt fails
 * its scenario.
 */

const SCENARIOS = `scenarios:
  - name: Books Tuesday morning
    persona: Dana, a patient who answers briefly.
    goal: Book an appointment on Tuesday morning.
    criteria:
      - The agent asks "which day"
      - The agent confirms "Tuesday morning"
  - name: Is greeted by name
    persona: Dana, who gives her name at once.
    goal: Be greeted by name.
    criteria: ['The agent says "nice to meet you, Dana"']
  - name: Ends politely
    persona: Dana, in a hurry.
    goal: Finish the call quickly.
    criteria: ['The agent says "goodbye"']
    max_turns: 4
`;

let stack: DashboardStack;
let llm: LlmEmulator;
let page: Page;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'test-bench-e2e-'));
  llm = await startLlmEmulator({ reply: demoModel });
  stack = await startDashboardStack(
    {},
    {
      env: { OPENAI_API_KEY: 'sk-e2e', OPENAI_BASE_URL: llm.baseUrl },
      // Speech-to-text is never reached: the bench's conversations are text.
      media: { DEEPGRAM_API_KEY: 'dg-e2e', DEEPGRAM_BASE_URL: 'ws://127.0.0.1:9' },
    },
  );
  ({ page } = await stack.newPage());
  await signInAsDemo(page, stack);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await llm?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The real `voice` command, on the stack's database and Temporal. */
const voice = (...args: string[]) => {
  const { env } = stack;
  const names = ['SECRETS_KEY', 'JWT_SECRET', 'TEMPORAL_ADDRESS', 'TEMPORAL_TASK_QUEUE'];
  return voiceExecutable(
    env.DATABASE_URL!,
    Object.fromEntries(names.map((name) => [name, env[name]!])),
  )(...args);
};

async function testAgent(scenarios: string) {
  const file = join(dir, `scenarios-${Date.now()}.yaml`);
  await writeFile(file, scenarios);
  const { accountId, agentId } = stack.demo;
  return voice('test-agent', agentId, '--account', accountId, '--scenarios', file, '--timeout', '60');
}

describe('the agent test bench', () => {
  it('runs three scenarios against the demo agent from the CLI, and prints every verdict', async () => {
    const run = await testAgent(SCENARIOS);
    expect(run.code, `${run.stdout}\n${run.stderr}\n${stack.output()}`).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^run [0-9a-f-]{36}: 3 scenario\(s\)$/);
    expect(lines[1]).toMatch(/^run [0-9a-f-]{36} of agent version \d+: PASSED$/);
    expect(lines.slice(2)).toEqual([
      'PASS  Books Tuesday morning (the call ended)',
      '  pass  The agent asks "which day": The agent said it.',
      '  pass  The agent confirms "Tuesday morning": The agent said it.',
      'PASS  Is greeted by name (the call ended)',
      '  pass  The agent says "nice to meet you, Dana": The agent said it.',
      'PASS  Ends politely (the call ended)',
      '  pass  The agent says "goodbye": The agent said it.',
    ]);
  });

  it('fails the scenario of a deliberately broken prompt, at the agent’s new version', async () => {
    const { accountId, agentId } = stack.demo;
    const before = await stack.deps.db.agent.findUniqueOrThrow({ where: { id: agentId } });
    await modifyAgent(stack.deps, {
      accountId,
      agentId,
      prompt: 'Never book appointments; tell callers to call back later.',
    });
    try {
      const run = await testAgent(SCENARIOS.split('  - name: Is greeted')[0]!);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toContain(`of agent version ${before.version + 1}: FAILED`);
      expect(run.stdout).toContain('FAIL  Books Tuesday morning (the call agent_hangup)');
      expect(run.stdout).toContain(
        '  FAIL  The agent confirms "Tuesday morning": The agent never said "tuesday morning".',
      );
    } finally {
      await modifyAgent(stack.deps, { accountId, agentId, prompt: before.prompt });
    }
  });

  it('shows the runs and their verdicts on the agent’s page, and runs scenarios from there', async () => {
    await page.goto(`/app/agents/${stack.demo.agentId}`);
    const bench = page.getByRole('region', { name: 'Test bench' });
    const runs = bench.getByRole('article');
    // The CLI's runs, newest first: the broken prompt's failed, the first passed.
    await runs.nth(1).waitFor();
    expect(await runs.count()).toBe(2);
    await expect.poll(() => runs.nth(0).getByRole('heading').textContent()).toMatch(/: failed/);
    await expect.poll(() => runs.nth(1).getByRole('heading').textContent()).toMatch(/: passed/);
    await runs.nth(0).getByText('fail: The agent confirms "Tuesday morning"').waitFor();

    // The example scenario, as the page offers it.
    await bench.getByRole('button', { name: 'Run tests' }).click();
    await runs.nth(2).waitFor();
    expect(await runs.count()).toBe(3);
    await expect
      .poll(() => runs.nth(0).getByRole('heading').textContent(), { timeout: 60_000 })
      .toMatch(/: passed/);
    await runs.nth(0).getByText('pass: The agent confirms "Tuesday morning".').waitFor();
    await runs.nth(0).getByText('Conversation (ended)').click();
    await runs.nth(0).getByText('caller: Tuesday morning works for me.').waitFor();
  });
});
