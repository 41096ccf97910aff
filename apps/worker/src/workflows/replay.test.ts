import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { WORKFLOW_INTERCEPTORS, WORKFLOWS_SOURCE } from '../worker';

/**
 * Every history under test/histories was recorded from workflows that were once deployed (see
 * test/record-histories.ts). A worker must replay each of them exactly: executions started by an older
 * worker are still running when a new one takes over. A change to a workflow goes behind patched()
 * (docs/temporal.md); one that does not fails here.
 */
const HISTORIES_DIR = new URL('../../test/histories/', import.meta.url);
const HISTORIES = readdirSync(HISTORIES_DIR).filter((name) => name.endsWith('.json'));
const variant = (name: string) =>
  fileURLToPath(new URL(`../../test/replay-variants/${name}.ts`, import.meta.url));

async function replay(workflowsPath: string, names: readonly string[]) {
  const histories = names.map((name) => ({
    workflowId: name,
    history: historyFromJSON(JSON.parse(readFileSync(new URL(name, HISTORIES_DIR), 'utf8'))),
  }));
  const results: { name: string; error?: string }[] = [];
  // With the workflows' interceptors, as every worker runs them: histories recorded untraced replay traced.
  const options = { workflowsPath, interceptors: { workflowModules: WORKFLOW_INTERCEPTORS } };
  for await (const result of Worker.runReplayHistories(options, histories)) {
    results.push({
      name: result.workflowId,
      ...(result.error ? { error: `${result.error.name}: ${result.error.message}` } : {}),
    });
  }
  return results;
}

describe('replay of recorded histories', () => {
  it('covers the call, campaign, webhook delivery and agent test workflows', () => {
    const kinds = new Set(HISTORIES.map((name) => name.split('.')[0]));
    expect([...kinds].sort()).toEqual(['agent-test', 'call', 'campaign', 'webhook-delivery']);
  });

  it('replays every history on the current workflows', async () => {
    const results = await replay(WORKFLOWS_SOURCE.workflowsPath, HISTORIES);
    expect(results.filter((result) => result.error)).toEqual([]);
    expect(results).toHaveLength(HISTORIES.length);
  });

  it('fails on a change made without patched()', async () => {
    const calls = HISTORIES.filter((name) => name.startsWith('call.'));
    const results = await replay(variant('unpatched-change'), calls);
    expect(results).toHaveLength(calls.length);
    for (const result of results) expect(result.error, result.name).toMatch(/^DeterminismViolationError/);
  });

  it('replays the same change made behind patched()', async () => {
    const results = await replay(variant('patched-change'), HISTORIES);
    expect(results.filter((result) => result.error)).toEqual([]);
  });
});
