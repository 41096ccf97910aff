import { randomUUID } from 'node:crypto';
import { loadCallAgent } from '@voice/core';
import type { TestDatabase } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardUser, twoAccounts } from '../../test/accounts';
import { failure } from '../../test/failure';
import { createCaller } from '../root';

let deps: Awaited<ReturnType<typeof twoAccounts>>['deps'];
let database: TestDatabase;
let alpha: Awaited<ReturnType<typeof twoAccounts>>['alpha'];
let beta: Awaited<ReturnType<typeof twoAccounts>>['beta'];
let alphaUser: string;

beforeAll(async () => {
  ({ deps, database, alpha, beta } = await twoAccounts());
  alphaUser = await dashboardUser(deps, alpha.account.id, 'turns@alpha.example');
});
afterAll(() => database.drop());

const as = (authorization: string) => createCaller({ deps, requestId: 'test', authorization });

describe('agents.conversationSettings', () => {
  it('reads the defaults, sets what is valid, refuses the rest changing nothing, and reaches live calls', async () => {
    const dashboard = as(alphaUser);
    const agentId = alpha.agent.id;
    const defaults = {
      interruption_sensitivity: 0.5,
      responsiveness: 1,
      reminder_after_ms: null,
      reminder_max_count: 1,
      voicemail_message_kind: 'text',
      noise_suppression: false,
      transfer_mode: 'cold',
    };
    expect(await dashboard.agents.conversationSettings({ agent_id: agentId })).toEqual(defaults);
    expect(
      await dashboard.agents.setConversationSettings({ agent_id: agentId, interruption_sensitivity: 0.8 }),
    ).toEqual({ ...defaults, interruption_sensitivity: 0.8 });
    for (const bad of [
      { reminder_after_ms: 500 },
      { reminder_max_count: 9 },
      { responsiveness: 2 },
      { voicemail_message_kind: 'prompt' as 'text' },
      { transfer_mode: 'lukewarm' as 'warm' },
    ])
      expect(
        (await failure(dashboard.agents.setConversationSettings({ agent_id: agentId, ...bad }))).code,
      ).toBe('BAD_REQUEST');

    for (const bad of [1.5, -0.1, Number.NaN])
      expect(
        (
          await failure(
            dashboard.agents.setConversationSettings({ agent_id: agentId, interruption_sensitivity: bad }),
          )
        ).code,
      ).toBe('BAD_REQUEST');
    expect((await failure(dashboard.agents.conversationSettings({ agent_id: beta.agent.id }))).code).toBe(
      'NOT_FOUND',
    );
    // An API key is not a dashboard user: these settings are the dashboard's.
    expect(
      (await failure(as(`Bearer ${alpha.key}`).agents.conversationSettings({ agent_id: agentId }))).code,
    ).toBe('FORBIDDEN');
    expect(await dashboard.agents.conversationSettings({ agent_id: agentId })).toEqual({
      ...defaults,
      interruption_sensitivity: 0.8,
    });

    // A stored value that no longer parses is read as the default.
    await deps.db.agent.update({
      where: { id: agentId },
      data: { conversationSettings: { interruption_sensitivity: 'high' } },
    });
    expect(await dashboard.agents.conversationSettings({ agent_id: agentId })).toEqual(defaults);

    await dashboard.agents.setConversationSettings({
      agent_id: agentId,
      interruption_sensitivity: 0.2,
      responsiveness: 0.4,
      reminder_after_ms: 6_000,
      reminder_max_count: 2,
      voicemail_message_kind: 'instruction',
      noise_suppression: true,
      transfer_mode: 'warm',
    });
    await deps.db.agent.update({
      where: { id: agentId },
      data: { voicemailAction: 'leave_message', voicemailMessage: 'Ask {{name}} to call back.' },
    });
    const call = await deps.db.call.create({
      data: {
        id: randomUUID(),
        accountId: alpha.account.id,
        agentId,
        fromNumber: '+14155550100',
        toNumber: '+14155550101',
        status: 'ongoing',
        varsProvided: { name: 'Dana' },
      },
    });
    expect((await loadCallAgent(deps, call.id))!.agent).toMatchObject({
      interruptionSensitivity: 0.2,
      responsiveness: 0.4,
      reminderAfterMs: 6_000,
      reminderMaxCount: 2,
      noiseSuppression: true,
      transferMode: 'warm',
      voicemail: { message: 'Ask Dana to call back.', kind: 'instruction' },
    });
  });
});
