import { holdWrites } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../accounts/create-user';
import { dialCall } from '../calls/dial-call';
import type { CoreDeps, StructuredModel } from '../deps';
import { createTestDeps, seedAccount } from '../testing/deps';
import { callAnalysis, reanalyzeCall } from './reanalyze-call';

/**
 * Re-extraction runs the analysis again with the agent's current variables, and keeps the analysis it
 * replaces, with who replaced it, in the same transaction as the new one.
 */

let deps: CoreDeps;
let databaseUrl: string;
let drop: () => Promise<void>;
beforeAll(async () => {
  const test = await createTestDeps();
  deps = test.deps;
  databaseUrl = test.database.url;
  drop = test.database.drop;
});
afterAll(() => drop?.());

/** A model that finds every variable the schema asks for, as `<name> #<answer number>`. */
function finder(): StructuredModel & { answers: number } {
  const model = {
    answers: 0,
    async structured(_messages: unknown, { schema }: { schema: Record<string, unknown> }) {
      model.answers += 1;
      const names = Object.keys(
        (schema as { properties: { vars_extracted: { properties: object } } }).properties.vars_extracted
          .properties,
      );
      return {
        summary: `Analysis #${model.answers}`,
        detected_gender: 'female',
        vars_extracted: Object.fromEntries(names.map((name) => [name, `${name} #${model.answers}`])),
      };
    },
  };
  return model;
}

let serial = 0;
async function endedCall() {
  serial += 1;
  const number = `+1415554${String(1000 + serial)}`;
  const { account, agent } = await seedAccount(deps, `Reanalyze ${serial}`, [number]);
  const user = await createUser(deps, { accountId: account.id, email: `ops${serial}@example.com` });
  await deps.db.agent.update({
    where: { id: agent.id },
    data: { variablesExtracted: [{ name: 'day', description: 'The day booked', required: true }] },
  });
  const { call_id } = await dialCall(deps, {
    accountId: account.id,
    from_number: number,
    to_number: '+14155559980',
  });
  await deps.db.call.update({
    where: { id: call_id },
    data: {
      status: 'ended',
      endedAt: new Date(),
      transcript: [{ role: 'caller', content: 'Tuesday at ten, please.', timestamp_ms: 1000 }],
      summary: 'First analysis',
      varsExtracted: { day: 'Tuesday' },
    },
  });
  return { accountId: account.id, agentId: agent.id, userId: user.id, email: user.email, callId: call_id };
}

describe('re-extraction', () => {
  it("uses the agent's current variables and keeps each replaced analysis with who replaced it", async () => {
    const call = await endedCall();
    const analyst = finder();
    const first = await reanalyzeCall({ ...deps, analyst }, call);
    expect(first).toMatchObject({
      summary: 'Analysis #1',
      vars_extracted: { day: 'day #1' },
      history: [{ summary: 'First analysis', vars_extracted: { day: 'Tuesday' }, replaced_by: call.email }],
    });

    await deps.db.agent.update({
      where: { id: call.agentId },
      data: {
        variablesExtracted: [
          { name: 'day', description: 'The day booked', required: true },
          { name: 'time', description: 'The hour booked', required: true },
        ],
      },
    });
    const second = await reanalyzeCall({ ...deps, analyst }, call);
    expect(second.vars_extracted).toEqual({ day: 'day #2', time: 'time #2' });
    expect(second.history.map((entry) => entry.summary)).toEqual(['Analysis #1', 'First analysis']);
    expect(await callAnalysis(deps, call)).toEqual(second);
  });

  it('refuses a call still in progress, or without a model, and writes nothing when the model fails', async () => {
    const call = await endedCall();
    await expect(reanalyzeCall(deps, call)).rejects.toMatchObject({ code: 'UNPROCESSABLE' });
    const failing: StructuredModel = {
      structured: async () => {
        throw new Error('the provider is down');
      },
    };
    await expect(reanalyzeCall({ ...deps, analyst: failing }, call)).rejects.toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
      message: 'The language model gave no analysis; try again',
    });
    const outOfSchema: StructuredModel = { structured: async () => ({ summary: '' }) };
    await expect(reanalyzeCall({ ...deps, analyst: outOfSchema }, call)).rejects.toMatchObject({
      code: 'PROVIDER_UNAVAILABLE',
    });
    expect(await callAnalysis(deps, call)).toMatchObject({ summary: 'First analysis', history: [] });

    await deps.db.call.update({ where: { id: call.callId }, data: { status: 'ongoing' } });
    await expect(reanalyzeCall({ ...deps, analyst: finder() }, call)).rejects.toMatchObject({
      code: 'CONFLICT',
    });
  });

  it('killed between keeping the old analysis and writing the new: neither is written, the call keeps its own', async () => {
    const call = await endedCall();
    const window = await holdWrites(databaseUrl, {
      table: 'call_analysis_history',
      when: `NEW.call_id = '${call.callId}'`,
      timing: 'AFTER',
    });
    try {
      const attempt = reanalyzeCall({ ...deps, analyst: finder() }, call).catch((error: Error) => error);
      await window.reached();
      expect(await window.terminate()).toBe(1);
      expect(await attempt).toBeInstanceOf(Error);
    } finally {
      await window.release();
    }
    expect(await callAnalysis(deps, call)).toEqual({
      summary: 'First analysis',
      vars_extracted: { day: 'Tuesday' },
      detected_gender: null,
      history: [],
    });
    // And the next attempt goes through whole.
    expect((await reanalyzeCall({ ...deps, analyst: finder() }, call)).history).toHaveLength(1);
  });
});
