import { createTestDatabase, type TestDatabase } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { voiceCli } from '../test/voice';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

const voice = (...args: string[]) => voiceCli(database.url)(...args);

describe('voice doctor', () => {
  it('finds nothing wrong in a sound database, then reports a count that drifted, and exits 1', async () => {
    const sound = await voice('doctor');
    expect(sound.code, sound.stderr).toBe(0);
    expect(sound.stdout).toContain('call_not_terminal');
    expect(sound.stdout).toContain('workflows not checked: set TEMPORAL_ADDRESS');

    const created = await voice('accounts', 'create', '--name', 'Doctor Co', '--json');
    const { account_id } = JSON.parse(created.stdout) as { account_id: string };
    const agent = await database.db.agent.create({
      data: { accountId: account_id, name: 'Doctor bot', voiceId: 'he-ori' },
    });
    // A change recorded for a call that does not exist: the counts say one call more than there is.
    await database.db.$executeRaw`
      INSERT INTO call_count_deltas (account_id, agent_id, status, direction, is_test_call, started_at, delta)
      VALUES (${account_id}::uuid, ${agent.id}::uuid, 'ended', 'outgoing', false, now(), 1)`;
    const drifted = await voice('doctor', '--json');
    expect(drifted.code).toBe(1);
    const report = JSON.parse(drifted.stdout) as {
      findings: { invariant: string; id: string; detail: string }[];
      workflowsChecked: boolean;
    };
    expect(report.findings).toEqual([
      {
        invariant: 'call_counts_drift',
        id: account_id,
        detail: 'call counts say 1, the calls are 0',
        repaired: false,
      },
    ]);
    expect(report.workflowsChecked).toBe(false);
  });

  it('refuses a bad option with a clear message and changes nothing', async () => {
    const refused = await voice('doctor', '--grace', '-5');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('grace must be 0 or more seconds');
  });
});
