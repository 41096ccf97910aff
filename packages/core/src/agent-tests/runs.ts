import { randomUUID } from 'node:crypto';
import type { AgentTestRun } from '@voice/db';
import type { TranscriptEntry } from '../calls/conversation';
import type { CoreDeps } from '../deps';
import { loadAgent } from '../agents/get-agent';
import { AppError } from '../errors';
import { isUuid } from '../scope';
import { parseAgentTestScenarios, type AgentTestScenario } from './scenarios';

/**
 * The agent test bench (docs/voice.md, "Test bench"): a run of scenarios against an agent at its current
 * version. Its workflow (agentTestWorkflow) has the media server hold each scenario's conversation as
 * text through the live conversation engine (the model playing the caller), then the model grade the
 * transcript against the scenario's criteria. The run passes when every criterion of every scenario does.
 */

export type AgentTestStatus = 'queued' | 'running' | 'passed' | 'failed' | 'error';

export interface AgentTestVerdict {
  criterion: string;
  passed: boolean;
  reason: string;
}

/** One scenario's outcome: its conversation, how it ended, and its verdicts once graded. */
export interface AgentTestResult {
  scenario: string;
  transcript: TranscriptEntry[];
  /** How the conversation ended (ended, agent_hangup, user_hangup, transferred, turn_limit); null: not run. */
  end: string | null;
  verdicts: AgentTestVerdict[];
  /** Every criterion passed; null until graded. */
  passed: boolean | null;
  /** Why the scenario could not be run or graded. */
  error: string | null;
}

/** A run as the dashboard and the CLI show it. */
export function agentTestView(row: AgentTestRun) {
  const scenarios = row.scenarios as unknown as AgentTestScenario[];
  const results = row.results as unknown as (AgentTestResult | null)[];
  return {
    run_id: row.id,
    agent_id: row.agentId,
    agent_version: row.agentVersion,
    status: row.status as AgentTestStatus,
    error: row.error,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
    scenarios: scenarios.map((scenario, index) => ({
      name: scenario.name,
      criteria: scenario.criteria,
      ...(results[index] ?? {
        transcript: [],
        end: null,
        verdicts: [],
        passed: null,
        error: null,
      }),
    })),
  };
}

export type AgentTestView = ReturnType<typeof agentTestView>;

/**
 * Starts a run of the scenarios (YAML, see parseAgentTestScenarios) against the account's agent: the run
 * recorded `queued` at the agent's version, then its workflow started.
 *
 * Crash window: between the row and the workflow's start. A start that fails ends the run `error` at
 * once; a process that dies in between leaves the run `queued` without a workflow, which the run's view
 * shows as `error` once a minute has passed (agentTestOf).
 */
export async function startAgentTest(
  deps: CoreDeps,
  { accountId, agentId, scenarios: text }: { accountId: string; agentId: string; scenarios: string },
): Promise<AgentTestView> {
  const agent = await loadAgent(deps.db, accountId, agentId);
  const scenarios = parseAgentTestScenarios(text);
  const id = randomUUID();
  await deps.db.agentTestRun.create({
    data: {
      id,
      accountId,
      agentId,
      agentVersion: agent.version,
      scenarios,
      results: scenarios.map(() => null),
      createdAt: deps.clock.now(),
    },
  });
  try {
    await deps.workflows.startAgentTest({ runId: id, accountId, agentId });
    await deps.db.agentTestRun.update({ where: { id }, data: { workflowStartedAt: deps.clock.now() } });
  } catch (error) {
    await deps.db.agentTestRun.update({
      where: { id },
      data: {
        status: 'error',
        error: `the run could not be started: ${(error as Error).message}`,
        finishedAt: deps.clock.now(),
      },
    });
  }
  return agentTestOf(deps, { accountId, runId: id });
}

/** A run queued this long without its workflow was never started (its starter died). */
const NEVER_STARTED_MS = 60_000;

/** A run of the account's, as it stands. */
export async function agentTestOf(
  deps: CoreDeps,
  { accountId, runId }: { accountId: string; runId: string },
): Promise<AgentTestView> {
  const row = isUuid(runId)
    ? await deps.db.agentTestRun.findFirst({ where: { id: runId, accountId } })
    : null;
  if (!row) throw new AppError('NOT_FOUND', 'Test run not found');
  return agentTestView(await settleNeverStarted(deps, row));
}

/** The agent's runs, newest first. */
export async function listAgentTests(
  deps: CoreDeps,
  { accountId, agentId, limit = 20 }: { accountId: string; agentId: string; limit?: number },
): Promise<AgentTestView[]> {
  await loadAgent(deps.db, accountId, agentId);
  const rows = await deps.db.agentTestRun.findMany({
    where: { accountId, agentId },
    orderBy: { createdAt: 'desc' },
    take: limit,
  });
  return Promise.all(rows.map(async (row) => agentTestView(await settleNeverStarted(deps, row))));
}

async function settleNeverStarted(deps: CoreDeps, row: AgentTestRun): Promise<AgentTestRun> {
  const stale = deps.clock.now().getTime() - row.createdAt.getTime() > NEVER_STARTED_MS;
  if (row.status !== 'queued' || row.workflowStartedAt || !stale) return row;
  const data = { status: 'error', error: 'the run was never started', finishedAt: deps.clock.now() };
  const { count } = await deps.db.agentTestRun.updateMany({
    where: { id: row.id, status: 'queued', workflowStartedAt: null },
    data,
  });
  return count === 1 ? { ...row, ...data } : row;
}

// The workflow's steps (agentTestWorkflow). Each is idempotent: a retried step writes the same.

/** The run begins: `running`, and how many scenarios it has. */
export async function beginAgentTest(deps: CoreDeps, runId: string): Promise<{ scenarios: number }> {
  const row = await deps.db.agentTestRun.findUniqueOrThrow({ where: { id: runId } });
  await deps.db.agentTestRun.updateMany({
    where: { id: runId, status: 'queued' },
    data: { status: 'running', workflowStartedAt: row.workflowStartedAt ?? deps.clock.now() },
  });
  return { scenarios: (row.scenarios as unknown[]).length };
}

/** A scenario of a run, what is held of it so far, and the agent it tests: one read of the run. */
export async function agentTestScenario(deps: CoreDeps, runId: string, index: number) {
  const row = await deps.db.agentTestRun.findUniqueOrThrow({ where: { id: runId } });
  const scenario = (row.scenarios as unknown as AgentTestScenario[])[index];
  if (!scenario) throw new Error(`Run ${runId} has no scenario ${index}`);
  const held = (row.results as unknown as (AgentTestResult | null)[])[index] ?? null;
  return { scenario, held, agentId: row.agentId, accountId: row.accountId };
}

/** Keeps a scenario's result on its run (a row lock: one writer at a time). */
export async function setResult(deps: CoreDeps, runId: string, index: number, result: AgentTestResult) {
  await deps.db.$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<{ results: (AgentTestResult | null)[] }[]>`
      SELECT results FROM agent_test_runs WHERE id = ${runId}::uuid FOR UPDATE`;
    const results = [...(row?.results ?? [])];
    results[index] = result;
    await tx.agentTestRun.update({ where: { id: runId }, data: { results: results as object[] } });
  });
}

/** A scenario's conversation, held: kept until it is graded. */
export async function recordAgentTestConversation(
  deps: CoreDeps,
  {
    runId,
    index,
    transcript,
    end,
  }: { runId: string; index: number; transcript: TranscriptEntry[]; end: string },
): Promise<void> {
  const { scenario } = await agentTestScenario(deps, runId, index);
  await setResult(deps, runId, index, {
    scenario: scenario.name,
    transcript,
    end,
    verdicts: [],
    passed: null,
    error: null,
  });
}

/** A scenario that could not be run or graded, and why. */
export async function failAgentTestScenario(
  deps: CoreDeps,
  { runId, index, reason }: { runId: string; index: number; reason: string },
): Promise<void> {
  const { scenario, held } = await agentTestScenario(deps, runId, index);
  await setResult(deps, runId, index, {
    scenario: scenario.name,
    transcript: held?.transcript ?? [],
    end: held?.end ?? null,
    verdicts: [],
    passed: null,
    error: reason,
  });
}

/** The run's end: passed when every scenario did, error when one could not be run or graded. */
export async function finishAgentTest(deps: CoreDeps, runId: string): Promise<AgentTestStatus> {
  const row = await deps.db.agentTestRun.findUniqueOrThrow({ where: { id: runId } });
  if (row.finishedAt) return row.status as AgentTestStatus;
  const results = row.results as unknown as (AgentTestResult | null)[];
  const status: AgentTestStatus = results.some((result) => !result || result.error || result.passed === null)
    ? 'error'
    : results.every((result) => result!.passed)
      ? 'passed'
      : 'failed';
  await deps.db.agentTestRun.updateMany({
    where: { id: runId, finishedAt: null },
    data: { status, finishedAt: deps.clock.now() },
  });
  return status;
}
