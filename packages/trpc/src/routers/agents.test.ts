import { createFlowAgent, FLOW_AGENT_PROMPT_MESSAGE } from '@voice/core';
import type { TestDatabase } from '@voice/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twoAccounts } from '../../test/accounts';
import { failure } from '../../test/failure';
import { createCaller } from '../root';

let deps: Awaited<ReturnType<typeof twoAccounts>>['deps'];
let database: TestDatabase;
let alpha: Awaited<ReturnType<typeof twoAccounts>>['alpha'];
let beta: Awaited<ReturnType<typeof twoAccounts>>['beta'];

beforeAll(async () => {
  ({ deps, database, alpha, beta } = await twoAccounts());
});
afterAll(() => database.drop());

const as = (key: string) => createCaller({ deps, requestId: 'test', authorization: `Bearer ${key}` });

describe('agents.* procedures', () => {
  it('create, get, modify, list and duplicate with the same rules as REST', async () => {
    const alphaApi = as(alpha.key);
    const created = await alphaApi.agents.create({
      name: 'Support',
      prompt: 'Help the caller.',
      webhooks: [{ name: 'CRM', url: 'https://crm.example/h', secret: 'a-secret-value' }],
    });
    expect(created).toMatchObject({
      name: 'Support',
      voice: 'Ori',
      language: 'he',
      agent_type: 'singlePrompt',
    });
    expect(created.webhooks[0]).toMatchObject({ has_secret: true, has_headers: false });
    expect(JSON.stringify(created)).not.toContain('a-secret-value');

    expect(await alphaApi.agents.get({ agent_id: created.agent_id })).toEqual(created);
    const modified = await alphaApi.agents.modify({ agent_id: created.agent_id, welcome_message: 'Hello!' });
    expect(modified.welcome_message).toBe('Hello!');
    expect(modified.webhooks).toEqual(created.webhooks);

    const list = await alphaApi.agents.list({ limit: 1 });
    expect(list.total_count).toBe(2);
    expect(list.agents.map((a) => a.agent_id)).toEqual([created.agent_id]);
    expect((await alphaApi.agents.list()).agents).toHaveLength(2);

    const copy = await alphaApi.agents.duplicate({ agent_id: created.agent_id, agent_name: 'Support copy' });
    expect(copy).toMatchObject({ name: 'Support copy', welcome_message: 'Hello!' });
    expect(copy.webhooks[0]).toMatchObject({ name: 'CRM', has_secret: true });
  });

  it('reject invalid input, a flow agent’s prompt and other accounts', async () => {
    const alphaApi = as(alpha.key);
    const bad = await failure(alphaApi.agents.create({ name: 'x', prompt: 'y', voice: 'Nobody' }));
    expect(bad.code).toBe('BAD_REQUEST');
    expect(bad.message).toMatch(/^Invalid voice "Nobody"\. Valid voices: /);

    const ssrf = await failure(
      alphaApi.agents.create({
        name: 'x',
        prompt: 'y',
        webhooks: [{ name: 'meta', url: 'https://169.254.169.254/' }],
      }),
    );
    expect(ssrf.message).toBe(
      'webhooks[0] ("meta"): url must point to a public address: 169.254.169.254 is a link-local address',
    );

    const flow = await createFlowAgent(deps, {
      accountId: alpha.account.id,
      name: 'Flow',
      language: 'he',
      voice: 'Ori',
      welcome_message: '',
      variables_provided: [],
      variables_extracted: [],
      flow: { start: 'a', nodes: [{ id: 'a', type: 'end' }] },
    });
    // A flow agent's own settings change here (REST's agent-modify refuses them); never a prompt.
    expect((await alphaApi.agents.modify({ agent_id: flow.agent_id, name: 'z' })).name).toBe('z');
    const prompted = await failure(alphaApi.agents.modify({ agent_id: flow.agent_id, prompt: 'Be brief.' }));
    expect([prompted.code, prompted.message]).toEqual(['BAD_REQUEST', FLOW_AGENT_PROMPT_MESSAGE]);

    const betaApi = as(beta.key);
    for (const attempt of [
      () => betaApi.agents.get({ agent_id: alpha.agent.id }),
      () => betaApi.agents.modify({ agent_id: alpha.agent.id, name: 'stolen' }),
      () => betaApi.agents.duplicate({ agent_id: alpha.agent.id, agent_name: 'stolen' }),
    ]) {
      const error = await failure(attempt());
      expect([error.code, error.message]).toEqual(['NOT_FOUND', 'Agent not found']);
    }
    expect((await betaApi.agents.list()).agents.map((a) => a.agent_id)).toEqual([beta.agent.id]);
  });
  it('keeps transfer and voicemail settings that can work, and refuses ones that cannot, changing nothing', async () => {
    const alphaApi = as(alpha.key);
    const created = await alphaApi.agents.create({ name: 'Line rules', prompt: 'Hi.' });
    expect(await alphaApi.agents.callHandling({ agent_id: created.agent_id })).toEqual({
      agent_id: created.agent_id,
      transfer_call_enabled: false,
      transfer_call_destination: null,
      voicemail_action: 'continue',
      voicemail_message: '',
      ring_timeout_seconds: null,
      llm_model: null,
    });
    const refusals = [
      () => alphaApi.agents.create({ name: 'No message', prompt: 'Hi.', voicemail_action: 'leave_message' }),
      () => alphaApi.agents.create({ name: 'Nowhere', prompt: 'Hi.', transfer_call_enabled: true }),
      () =>
        alphaApi.agents.create({ name: 'Bad number', prompt: 'Hi.', transfer_call_destination: '555-0199' }),
      () => alphaApi.agents.modify({ agent_id: created.agent_id, transfer_call_enabled: true }),
      () => alphaApi.agents.modify({ agent_id: created.agent_id, voicemail_action: 'leave_message' }),
      () => alphaApi.agents.create({ name: 'Short ring', prompt: 'Hi.', ring_timeout_seconds: 2 }),
      () => alphaApi.agents.modify({ agent_id: created.agent_id, ring_timeout_seconds: 601 }),
      () => alphaApi.agents.modify({ agent_id: created.agent_id, ring_timeout_seconds: 12.5 }),
      () => alphaApi.agents.modify({ agent_id: created.agent_id, llm_model: 'gpt 4o; drop table' }),
      () => alphaApi.agents.create({ name: 'No model', prompt: 'Hi.', llm_model: '' }),
    ];
    for (const refusal of refusals) expect((await failure(refusal())).code).toBe('BAD_REQUEST');
    expect(await alphaApi.agents.get({ agent_id: created.agent_id })).toEqual(created);
    expect((await alphaApi.agents.list()).agents.map((a) => a.name)).not.toContain('No message');

    await alphaApi.agents.modify({
      agent_id: created.agent_id,
      transfer_call_enabled: true,
      transfer_call_destination: '+14155550199',
      voicemail_action: 'leave_message',
      voicemail_message: 'Please call us back.',
      ring_timeout_seconds: 20,
      llm_model: 'gpt-4o',
    });
    expect(await alphaApi.agents.callHandling({ agent_id: created.agent_id })).toMatchObject({
      llm_model: 'gpt-4o',
      transfer_call_enabled: true,
      transfer_call_destination: '+14155550199',
      voicemail_action: 'leave_message',
      voicemail_message: 'Please call us back.',
      ring_timeout_seconds: 20,
    });
    expect((await alphaApi.agents.get({ agent_id: created.agent_id })).updated_at).not.toBe(
      created.updated_at,
    );
    const copy = await alphaApi.agents.duplicate({
      agent_id: created.agent_id,
      agent_name: 'Line rules copy',
    });
    expect(await alphaApi.agents.callHandling({ agent_id: copy.agent_id })).toMatchObject({
      llm_model: 'gpt-4o',
      transfer_call_destination: '+14155550199',
      voicemail_action: 'leave_message',
      ring_timeout_seconds: 20,
    });
    await alphaApi.agents.modify({
      agent_id: copy.agent_id,
      transfer_call_destination: null,
      transfer_call_enabled: false,
    });
  });
});
