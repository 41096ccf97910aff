import { randomUUID } from 'node:crypto';
import { holdWrites, type TestDatabase } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../accounts/create-account';
import { handleCallEnded } from '../after-call/handle-call-ended';
import { createAgent } from '../agents/create-agent';
import { startPendingCallWorkflows } from '../calls/dial-call';
import { createCampaign } from '../campaigns/create-campaign';
import { CreateCampaignInput } from '../campaigns/schemas';
import { deferredWorkflows, type CoreDeps, type WorkflowStarter } from '../deps';
import { addPhoneNumber } from '../phone-numbers/add-phone-number';
import { createTestDeps, testAgentInput } from '../testing/deps';
import { advanceCampaign } from './advance-campaign';
import { callEndClaimToken } from './dial-after-call-end';

/**
 * A campaign call's end dials the next contact in the call-end step. Its write path: the contact's
 * outcome (one statement), then the campaign's step (one transaction: the next call's row, its first
 * transition, the contact moved to `calling`), then the call's workflow start. The tests stop it in
 * each window and assert the rows: no contact is lost, none is dialled twice.
 */

let deps: CoreDeps;
let database: TestDatabase;
beforeAll(async () => ({ deps, database } = await createTestDeps()));
afterAll(() => database?.drop());

/** A workflow starter that records what it is asked; `failStarts` starts fail (the client down). */
function recordingWorkflows(options: { failStarts?: number } = {}) {
  let failStarts = options.failStarts ?? 0;
  const seen = { started: [] as string[], woken: [] as string[] };
  const workflows: WorkflowStarter = {
    ...deferredWorkflows,
    async startCallWorkflow({ callId }) {
      if (failStarts > 0) {
        failStarts -= 1;
        throw new Error('Temporal unavailable');
      }
      seen.started.push(callId);
    },
    async wakeCampaign(campaignId) {
      seen.woken.push(campaignId);
    },
  };
  return { workflows, seen };
}

/** A running campaign of three contacts, one call at a time, its first contact dialled and its call ended. */
async function campaignWithEndedCall(input: Partial<CreateCampaignInput> = {}) {
  const { account } = await createAccount(deps, { name: `Next dial ${randomUUID()}` });
  const agent = await createAgent(deps, testAgentInput(account.id, { name: 'Dialer' }));
  const from = `+1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
  await addPhoneNumber(deps, { accountId: account.id, phone_number: from });
  const { body } = await createCampaign(deps, {
    accountId: account.id,
    ...CreateCampaignInput.parse({
      name: 'Next dial',
      agent_id: agent.agent_id,
      from_numbers: [from],
      max_concurrent_calls: 1,
      contacts: [0, 1, 2].map((i) => ({ to_number: `+1415777${1000 + i}` })),
      ...input,
    }),
  });
  const campaignId = body.campaign_id;
  const first = await advanceCampaign(
    { ...deps, workflows: recordingWorkflows().workflows },
    { campaignId, budget: 10, claimToken: randomUUID() },
  );
  expect(first.dialed).toBe(1);
  const call = await deps.db.call.findFirstOrThrow({ where: { campaignId } });
  await deps.db.call.update({ where: { id: call.id }, data: { status: 'ended', endedAt: new Date() } });
  return { campaignId, callId: call.id };
}

/** The campaign's contacts (state, attempts) and its calls' numbers with whether their workflow started. */
async function rowsOf(campaignId: string) {
  const contacts = await deps.db.campaignContact.findMany({
    where: { campaignId },
    orderBy: { position: 'asc' },
  });
  const calls = await deps.db.call.findMany({ where: { campaignId }, orderBy: { createdAt: 'asc' } });
  const campaign = await deps.db.campaign.findUniqueOrThrow({ where: { id: campaignId } });
  return {
    contacts: contacts.map((c) => [c.state, c.attempts]),
    calls: calls.map((c) => [c.toNumber, c.workflowStartedAt !== null]),
    wakePending: campaign.wakePending,
  };
}

/** The rows once the first call's end has dialled the second contact, and started its call. */
const NEXT_DIALED = {
  contacts: [
    ['completed', 1],
    ['calling', 1],
    ['queued', 0],
  ],
  calls: [
    ['+14157771000', true],
    ['+14157771001', true],
  ],
  wakePending: false,
};

describe("a campaign call's end dials the next contact", () => {
  it('in the call-end step, with no signal to the workflow while calls are in flight', async () => {
    const { campaignId, callId } = await campaignWithEndedCall();
    const { workflows, seen } = recordingWorkflows();
    await handleCallEnded({ ...deps, workflows }, callId, { wakeCampaign: true });
    expect(await rowsOf(campaignId)).toEqual(NEXT_DIALED);
    expect(seen.started).toHaveLength(1);
    expect(seen.woken).toEqual([]);
    // The claimed contact carries the step's token, derived from the ended call.
    const next = await deps.db.campaignContact.findFirstOrThrow({ where: { campaignId, state: 'calling' } });
    expect(next.claimToken).toBe(callEndClaimToken(callId));
  });

  it('leaves a paced campaign to its workflow (the token bucket is the workflow’s)', async () => {
    const { campaignId, callId } = await campaignWithEndedCall({ dials_per_minute: 60 });
    const { workflows, seen } = recordingWorkflows();
    await handleCallEnded({ ...deps, workflows }, callId, { wakeCampaign: true });
    expect((await rowsOf(campaignId)).contacts).toEqual([
      ['completed', 1],
      ['queued', 0],
      ['queued', 0],
    ]);
    expect(seen.woken).toEqual([campaignId]);
  });

  it('wakes the workflow when its step finishes the campaign', async () => {
    const { campaignId, callId } = await campaignWithEndedCall();
    await deps.db.campaignContact.updateMany({
      where: { campaignId, state: 'queued' },
      data: { state: 'canceled' },
    });
    const { workflows, seen } = recordingWorkflows();
    await handleCallEnded({ ...deps, workflows }, callId, { wakeCampaign: true });
    expect((await deps.db.campaign.findUniqueOrThrow({ where: { id: campaignId } })).status).toBe(
      'completed',
    );
    expect(seen.woken).toEqual([campaignId]);
  });

  it('killed between the outcome and the next call: the workflow is woken, and a retried end dials it once', async () => {
    const { campaignId, callId } = await campaignWithEndedCall();
    const window = await holdWrites(database.url, { table: 'calls', when: `NEW.to_number = '+14157771001'` });
    const { workflows, seen } = recordingWorkflows();
    const stepErrors: unknown[] = [];
    try {
      const ending = handleCallEnded({ ...deps, workflows }, callId, {
        wakeCampaign: true,
        onCampaignStepError: (error) => stepErrors.push(error),
      });
      await window.reached();
      expect(await window.terminate()).toBe(1);
      // The step's transaction is gone; the end itself stands, and the workflow is asked to look.
      await ending;
    } finally {
      await window.release();
    }
    expect(seen.woken).toEqual([campaignId]);
    // The failure is heard, not swallowed: the worker logs it.
    expect(stepErrors).toHaveLength(1);
    expect(await rowsOf(campaignId)).toEqual({
      contacts: [
        ['completed', 1],
        ['queued', 0],
        ['queued', 0],
      ],
      calls: [['+14157771000', true]],
      wakePending: true,
    });
    // Had the process died there instead, the call-end step would run again: it dials the contact once.
    await handleCallEnded({ ...deps, workflows }, callId, { wakeCampaign: true });
    await handleCallEnded({ ...deps, workflows }, callId, { wakeCampaign: true });
    expect(await rowsOf(campaignId)).toEqual(NEXT_DIALED);
  });

  it('stopped between the next call’s commit and its workflow start: the relay starts it, no second dial', async () => {
    const { campaignId, callId } = await campaignWithEndedCall();
    const { workflows, seen } = recordingWorkflows({ failStarts: 1 });
    await handleCallEnded({ ...deps, workflows }, callId, { wakeCampaign: true });
    expect((await rowsOf(campaignId)).calls).toEqual([
      ['+14157771000', true],
      ['+14157771001', false],
    ]);
    // The retried end claims nothing more; the relay starts the waiting call.
    await handleCallEnded({ ...deps, workflows }, callId, { wakeCampaign: true });
    expect(await startPendingCallWorkflows({ ...deps, workflows }, { olderThanMs: 0 })).toBe(1);
    expect(await rowsOf(campaignId)).toEqual(NEXT_DIALED);
    expect(seen.started).toHaveLength(1);
  });
});
