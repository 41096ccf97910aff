import type { Command } from 'commander';
import { withDeps } from '../context';
import { printRows } from '../output';
import { exitWith, print } from '../io';

/**
 * `voice doctor`: the reconciler's checks on demand (docs/reliability.md), reported, never repaired:
 * the worker's reconciler repairs. Without TEMPORAL_ADDRESS the checks that look at workflows are
 * skipped. Exits 1 when it finds a violation, so a script can act on it.
 */
export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check the invariants (every call ends, every contact settles, every delivery finishes, counts match) and print what is wrong',
    )
    .option('--grace <seconds>', 'leave rows younger than this alone (the normal course of things)', '120')
    .option('--all-counts', "check every account's and campaign's counts, not only the last hour's")
    .option('--json', 'print JSON')
    .action((options: { grace: string; allCounts?: boolean; json?: boolean }) =>
      withDeps(async (deps, core) => {
        const graceMs = core.parseInput(core.DoctorOptions, { grace: Number(options.grace) }).grace * 1000;
        const report = await core.reconcile(deps, { graceMs, allCounts: options.allCounts === true });
        const workflowsChecked = deps.workflows.workflowState !== undefined;
        if (options.json) print(JSON.stringify({ ...report, workflowsChecked }, null, 2));
        else {
          const totals = core.INVARIANTS.map((invariant) => ({
            invariant,
            found: report.totals[invariant].found,
          }));
          printRows(totals, ['invariant', 'found'], {});
          if (report.findings.length > 0)
            printRows(
              report.findings.map((finding) => ({ ...finding })),
              ['invariant', 'id', 'detail'],
              {},
            );
          if (!workflowsChecked) print('workflows not checked: set TEMPORAL_ADDRESS');
        }
        if (report.findings.length > 0) exitWith(1);
      }),
    );
}
