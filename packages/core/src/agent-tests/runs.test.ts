import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../deps';
import { AppError } from '../errors';
import { createTestDeps, manualClock, seedAccount, startsNothing } from '../testing/deps';
import {
  agentTestOf,
  beginAgentTest,
  failAgentTestScenario,
  finishAgentTest,
  listAgentTests,
  recordAgentTestConversation,
  startAgentTest,
} from './runs';
import { gradeAgentTestScenario } from './grading';
import { parseAgentTestScenarios } from './scenarios';

/**
 * The test bench's runs: scenarios refused with where they are wrong, a run whose workflow cannot be
 * started (or whose starter died before starting it) ending `error`, grading a verdict per criterion,
 * and the run's end.
 */

let deps: CoreDeps;
let drop: () => Promise<void>;
const clock = manualClock(new Date());
const started: string[] = [];
let account: Awaited<ReturnType<typeof seedAccount>>;
beforeAll(async () => {
  const test = await createTestDeps(clock, {
    workflows: { ...startsNothing, startAgentTest: async ({ runId }) => void started.push(runId) },
  });
  deps = test.deps;
  drop = test.database.drop;
  account = await seedAccount(deps, 'Test bench', ['+14155550140']);
});
afterAll(() => drop?.());

const SCENARIOS = `scenarios:
  - name: Books a visit
    persona: Dana, a patient
    goal: Book a visit on Tuesday
    criteria:
      - The agent asks which day suits
      - The agent confirms "Tuesday"
  - name: Asks about parking
    persona: Sam
    goal: Learn where to park
    criteria: [The agent explains "parking"]
    max_turns: 3
`;

const validation = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).message;
  }
  throw new Error('no error');
};

describe('the test bench', () => {
  it('reads scenarios from YAML, and says where ones that do not hold are wrong', () => {
    expect(parseAgentTestScenarios(SCENARIOS)).toMatchObject([
      { name: 'Books a visit', max_turns: 8 },
      { name: 'Asks about parking', max_turns: 3, criteria: ['The agent explains "parking"'] },
    ]);
    expect(validation(() => parseAgentTestScenarios('- name: [unclosed'))).toMatch(/not valid YAML/);
    expect(validation(() => parseAgentTestScenarios('- name: A\n  persona: B\n  goal: C\n'))).toMatch(
      /^scenarios\.0\.criteria: /,
    );
    expect(
      validation(() => parseAgentTestScenarios('- {name: A, persona: B, goal: C, criteria: [x], mood: 1}')),
    ).toMatch(/mood/);
    expect(validation(() => parseAgentTestScenarios('[]'))).toMatch(/>=1|at least/i);
  });

  it('starts a run at the agent’s version, grades each criterion, and ends it as its verdicts say', async () => {
    const run = await startAgentTest(deps, {
      accountId: account.account.id,
      agentId: account.agent.id,
      scenarios: SCENARIOS,
    });
    expect(started).toContain(run.run_id);
    expect(run).toMatchObject({ status: 'queued', agent_version: account.agent.version });
    expect(await beginAgentTest(deps, run.run_id)).toEqual({ scenarios: 2 });
    const transcript = [
      { role: 'agent' as const, content: 'Which day suits you?', timestamp_ms: 0 },
      { role: 'caller' as const, content: 'Tuesday.', timestamp_ms: 900 },
      { role: 'agent' as const, content: 'Tuesday it is.', timestamp_ms: 1_500 },
    ];
    await recordAgentTestConversation(deps, { runId: run.run_id, index: 0, transcript, end: 'ended' });
    const asked: string[] = [];
    const analyst = {
      async structured(messages: { content: string }[]) {
        asked.push(messages.at(-1)!.content);
        // The first criterion graded, the second left out: it fails as not graded.
        return { verdicts: [{ criterion: 1, passed: true, reason: 'It asked.' }] };
      },
    };
    await gradeAgentTestScenario({ ...deps, analyst }, { runId: run.run_id, index: 0 });
    expect(asked[0]).toContain('1. The agent asks which day suits\n2. The agent confirms "Tuesday"');
    expect(asked[0]).toContain('Agent: Which day suits you?\nCaller: Tuesday.');
    await failAgentTestScenario(deps, { runId: run.run_id, index: 1, reason: 'no media server' });
    expect(await finishAgentTest(deps, run.run_id)).toBe('error');
    const view = await agentTestOf(deps, { accountId: account.account.id, runId: run.run_id });
    expect(view.scenarios).toMatchObject([
      {
        name: 'Books a visit',
        end: 'ended',
        passed: false,
        verdicts: [
          { criterion: 'The agent asks which day suits', passed: true, reason: 'It asked.' },
          { criterion: 'The agent confirms "Tuesday"', passed: false, reason: 'not graded' },
        ],
      },
      { name: 'Asks about parking', error: 'no media server', passed: null },
    ]);
    // Another account sees neither the run nor the agent's runs.
    const other = await seedAccount(deps, 'Other bench', ['+14155550141']);
    await expect(agentTestOf(deps, { accountId: other.account.id, runId: run.run_id })).rejects.toThrow(
      'Test run not found',
    );
    await expect(
      listAgentTests(deps, { accountId: other.account.id, agentId: account.agent.id }),
    ).rejects.toThrow('Agent not found');
  });

  it('ends a run whose workflow could not be started, or was never started, as error', async () => {
    const refusing = {
      ...deps,
      workflows: { ...startsNothing, startAgentTest: () => Promise.reject(new Error('Temporal down')) },
    };
    const refused = await startAgentTest(refusing, {
      accountId: account.account.id,
      agentId: account.agent.id,
      scenarios: SCENARIOS,
    });
    expect(refused).toMatchObject({ status: 'error', error: 'the run could not be started: Temporal down' });

    // The starter died between the row and the start: the run is queued with no workflow.
    const dying = {
      ...deps,
      workflows: { ...startsNothing, startAgentTest: () => new Promise<void>(() => {}) },
    };
    void startAgentTest(dying, {
      accountId: account.account.id,
      agentId: account.agent.id,
      scenarios: SCENARIOS,
    });
    let orphan = '';
    await expect
      .poll(async () => {
        const runs = await listAgentTests(deps, { accountId: account.account.id, agentId: account.agent.id });
        orphan = runs.find((run) => run.status === 'queued' && !started.includes(run.run_id))?.run_id ?? '';
        return orphan;
      })
      .not.toBe('');
    expect((await agentTestOf(deps, { accountId: account.account.id, runId: orphan })).status).toBe('queued');
    clock.advance(61_000);
    expect(await agentTestOf(deps, { accountId: account.account.id, runId: orphan })).toMatchObject({
      status: 'error',
      error: 'the run was never started',
    });
  });
});
