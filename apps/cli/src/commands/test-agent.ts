import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { AgentTestView } from '@voice/core';
import { loadCore, withAccount } from '../context';
import { printRecord } from '../output';
import { print } from '../io';

/** How often a run is looked at while the command waits for it. */
const POLL_MS = 1_000;

/** A run's verdicts as a person reads them: each scenario, each criterion passed or failed, and why. */
export function verdictLines(run: AgentTestView): string[] {
  const lines = [`run ${run.run_id} of agent version ${run.agent_version}: ${run.status.toUpperCase()}`];
  if (run.error) lines.push(`  ${run.error}`);
  for (const scenario of run.scenarios) {
    const verdict = scenario.error
      ? 'ERROR'
      : scenario.passed === null
        ? '…'
        : scenario.passed
          ? 'PASS'
          : 'FAIL';
    lines.push(`${verdict}  ${scenario.name}${scenario.end ? ` (the call ${scenario.end})` : ''}`);
    if (scenario.error) lines.push(`      ${scenario.error}`);
    for (const criterion of scenario.verdicts)
      lines.push(`  ${criterion.passed ? 'pass' : 'FAIL'}  ${criterion.criterion}: ${criterion.reason}`);
  }
  return lines;
}

export function registerTestAgentCommand(program: Command): void {
  program
    .command('test-agent')
    .description(
      "Run an agent's test bench: each scenario's simulated caller talks with the agent, then the conversation is graded",
    )
    .argument('<agent-id>')
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--scenarios <file>', 'a YAML file of scenarios (persona, goal, criteria, max_turns)')
    .option('--timeout <seconds>', 'how long to wait for the verdicts', '900')
    .option('--json', 'print the run as JSON')
    .action(
      async (
        agentId: string,
        options: { account: string; scenarios: string; timeout: string; json?: boolean },
      ) => {
        const core = await loadCore();
        const scenarios = await readFile(options.scenarios, 'utf8').catch(() => {
          throw new core.AppError('VALIDATION_FAILED', `Cannot read the scenarios file ${options.scenarios}`);
        });
        const deadline = Date.now() + Number(options.timeout) * 1000;
        await withAccount(options.account, async (deps, accountId) => {
          let run = await core.startAgentTest(deps, { accountId, agentId, scenarios });
          if (!options.json) print(`run ${run.run_id}: ${run.scenarios.length} scenario(s)`);
          while ((run.status === 'queued' || run.status === 'running') && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, POLL_MS));
            run = await core.agentTestOf(deps, { accountId, runId: run.run_id });
          }
          if (options.json) printRecord(run, options);
          else for (const line of verdictLines(run)) print(line);
          // Passed: 0; failed: 1; not done or in error: 2.
          process.exitCode = run.status === 'passed' ? 0 : run.status === 'failed' ? 1 : 2;
        });
      },
    );
}
