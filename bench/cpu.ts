// Where the machine's CPU goes during a benchmark, read from /proc: by process and by group of processes
// (api, worker, Temporal, Postgres, the benchmark itself, others), the profile that says which part of
// the stack bounds a figure.
import { readdirSync, readFileSync } from 'node:fs';
import type { AppProcess } from './harness';

/**
 * Starts measuring; `report()` gives the cores each group kept busy since, the interrupts and the whole
 * machine, as one line.
 */
export function cpuMeter({ api, worker }: { api?: AppProcess | null; worker: AppProcess | AppProcess[] }) {
  // The dev server's binary is `temporal`, the server built from source `server`.
  const temporalPid = childPids(process.pid).find((pid) =>
    ['temporal', 'server'].includes(readProc(pid, 'comm').trim()),
  );
  const before = cpuSnapshot();
  const started = performance.now();
  return {
    report(): string {
      const after = cpuSnapshot();
      const elapsed = (performance.now() - started) / 1000;
      // A process that exited in between is not counted.
      const groupOf = new Map<number, string>();
      if (api) for (const pid of tree(api.child.pid!)) groupOf.set(pid, 'api');
      for (const each of [worker].flat()) for (const pid of tree(each.child.pid!)) groupOf.set(pid, 'worker');
      if (temporalPid) groupOf.set(temporalPid, 'Temporal');
      groupOf.set(process.pid, 'benchmark');
      const cpu = new Map<string, number>(
        [...(api ? ['api'] : []), 'worker', 'Temporal', 'Postgres', 'benchmark', 'other processes'].map(
          (group) => [group, 0],
        ),
      );
      for (const [pid, seconds] of after.processes) {
        const group =
          groupOf.get(pid) ?? (readProc(pid, 'comm').startsWith('postgres') ? 'Postgres' : 'other processes');
        cpu.set(group, cpu.get(group)! + seconds - (before.processes.get(pid) ?? 0));
      }
      const cores = (seconds: number) => (seconds / elapsed).toFixed(2);
      return (
        `${[...cpu].map(([group, seconds]) => `${group} ${cores(seconds)}`).join(', ')}, ` +
        `interrupts ${cores(after.interrupts - before.interrupts)}; ` +
        `whole machine ${cores(after.machine - before.machine)} of ${cpuCount()}`
      );
    },
  };
}

export function readProc(pid: number, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return '';
  }
}

/** Direct children of a process, found through each process's parent id. */
export function childPids(parent: number): number[] {
  return allPids().filter((pid) => Number(readProc(pid, 'stat').split(') ')[1]?.split(' ')[1]) === parent);
}

export function tree(pid: number): number[] {
  return [pid, ...childPids(pid).flatMap(tree)];
}

/** CPU seconds used so far (user + system; clock ticks of 1/100 s). */
export function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const fields = readProc(pid, 'stat').split(') ')[1]?.split(' ') ?? [];
    ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  }
  return ticks / 100;
}

/** CPU seconds so far of every process, and of the machine (busy, and of that interrupt handling). */
function cpuSnapshot() {
  // user nice system idle iowait irq softirq steal (guest time is already counted in user).
  const fields = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
  const busy = fields.reduce((sum, v) => sum + v, 0) - (fields[3] ?? 0) - (fields[4] ?? 0);
  return {
    processes: new Map(allPids().map((pid) => [pid, cpuSeconds([pid])])),
    interrupts: ((fields[5] ?? 0) + (fields[6] ?? 0)) / 100,
    machine: busy / 100,
  };
}

export function allPids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
}

export function cpuCount(): number {
  return readFileSync('/proc/cpuinfo', 'utf8').match(/^processor/gm)?.length ?? 0;
}
