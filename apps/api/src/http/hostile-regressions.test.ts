import { TRPCClientError } from '@trpc/client';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';
import { createUser, signUserToken } from '@voice/core';
import { createVoiceClient } from '@voice/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, seedAccount, startTestApi, type TestApi } from '../../test/harness';
import { BODY_LIMIT_BYTES } from '../server';

/*
 * The inputs a hostile run against tRPC found answered with 500, each now a 4xx with a clear message that
 * writes nothing (or, for a knowledge document, text cleaned as docs/flows.md says), through tRPC and REST.
 */

let api: TestApi;
let key: string;
let user: string;
let agentId: string;
let campaignId: string;

beforeAll(async () => {
  api = await startTestApi();
  const seeded = await seedAccount(api.deps, 'Hostile', ['+14155550100']);
  key = seeded.key;
  agentId = seeded.agent.id;
  const member = await createUser(api.deps, { accountId: seeded.account.id, email: 'ops@hostile.example' });
  user = await signUserToken(api.deps.config.jwtSecret, { userId: member.id, accountId: seeded.account.id });
  const campaign = await http(`${api.url}/functions/v1/campaign-create`, {
    method: 'POST',
    key,
    body: {
      name: 'Hostile',
      agent_id: agentId,
      from_numbers: ['+14155550100'],
      contacts: [{ to_number: '+14155550123' }],
      draft: true,
    },
  });
  expect(campaign.status, campaign.text).toBe(201);
  campaignId = (campaign.json as unknown as { campaign_id: string }).campaign_id;
});
afterAll(() => api?.close());

/** A tRPC call over HTTP (a query's input in the URL): the status and the error's message and code. */
async function trpc(path: string, input: unknown, credential = user) {
  const query = path === 'analytics.calls' || path === 'campaigns.contacts.list';
  const res = query
    ? await http(`${api.url}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, {
        key: credential,
      })
    : await http(`${api.url}/trpc/${path}`, { method: 'POST', key: credential, body: input });
  const error = (res.json as { error?: { message: string; data: { code: string; httpStatus: number } } })
    .error;
  return { status: res.status, message: error?.message, code: error?.data.code };
}

describe('inputs that once answered 500', () => {
  it('refuses timestamps past the Date range in analytics', async () => {
    for (const [start, end] of [
      [8.64e15, 2 ** 53 - 1],
      [0, 2 ** 53 - 1],
    ]) {
      expect(await trpc('analytics.calls', { start_timestamp: start, end_timestamp: end })).toMatchObject({
        status: 400,
        code: 'BAD_REQUEST',
        message: expect.stringMatching(/_timestamp: must be a Unix time in ms before the year 275760/),
      });
      const rest = await http(`${api.url}/functions/v1/analytics-calls`, {
        method: 'POST',
        key,
        body: { start_timestamp: start, end_timestamp: end },
      });
      expect(rest.status, rest.text).toBe(400);
    }
  });

  it('refuses a contacts page after a position an integer column cannot hold', async () => {
    expect(await trpc('campaigns.contacts.list', { campaign_id: campaignId, after: 2 ** 31 })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/after/),
    });
    const rest = await http(`${api.url}/functions/v1/campaign-contacts-list/${campaignId}`, {
      method: 'POST',
      key,
      body: { after: 2 ** 31 },
    });
    expect(rest.status, rest.text).toBe(400);
    const last = await trpc('campaigns.contacts.list', { campaign_id: campaignId, after: 2 ** 31 - 1 });
    expect(last.status).toBe(200);
  });

  it('refuses test scenarios whose YAML aliases do not resolve or expand too far, or decode to a NUL', async () => {
    const runs = () => api.deps.db.agentTestRun.count();
    const before = await runs();
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      ...'bcdefghij'.split('').map((name, index) => {
        const previous = 'abcdefghij'[index]!;
        return `${name}: &${name} [*${previous},*${previous},*${previous},*${previous},*${previous},*${previous},*${previous},*${previous},*${previous}]`;
      }),
    ].join('\n');
    const scenario = (caller: string) =>
      `- name: one\n  caller: ${caller}\n  max_turns: 2\n  criteria: ["The agent greets"]\n`;
    for (const [scenarios, reason] of [
      ['a: *nope', /not valid YAML: .*alias/i],
      [bomb, /not valid YAML: .*alias/i],
      [scenario('"Dana\\0"'), /NUL/],
    ] as const) {
      const refused = await trpc('agents.startTest', { agent_id: agentId, scenarios }, key);
      expect(refused, scenarios.slice(0, 40)).toMatchObject({
        status: 400,
        message: expect.stringMatching(reason),
      });
    }
    expect(await runs()).toBe(before);
  });

  it("keeps a document's text without the NUL bytes it held", async () => {
    const base = await trpc('knowledge.create', { name: 'Facts', language: 'en' });
    expect(base.status).toBe(200);
    const [knowledgeBase] = await api.deps.db.knowledgeBase.findMany({ where: { name: 'Facts' } });
    const added = await http(`${api.url}/trpc/knowledge.addDocument`, {
      method: 'POST',
      key: user,
      body: {
        knowledge_base_id: knowledgeBase!.id,
        name: 'hours.txt',
        content_type: 'text/plain',
        data_base64: Buffer.from('We open\u0000 at nine.\u0007\nWe close at five.').toString('base64'),
      },
    });
    expect(added.status, added.text).toBe(200);
    const document = await api.deps.db.knowledgeDocument.findFirstOrThrow({
      where: { knowledgeBaseId: knowledgeBase!.id },
    });
    expect(document.text).toBe('We open at nine.\nWe close at five.');
  });

  it('answers a body over the limit or not JSON on /trpc in the shape the tRPC client reads', async () => {
    const client = createVoiceClient({ baseUrl: api.url, token: key });
    const huge = await client.agents.create
      .mutate({ name: 'x'.repeat(BODY_LIMIT_BYTES + 1), prompt: 'Hi' } as never)
      .catch((error: unknown) => error);
    expect(huge).toBeInstanceOf(TRPCClientError);
    expect((huge as TRPCClientError<never>).message).toBe('Request body must be at most 1 MB');
    expect((huge as TRPCClientError<never>).data).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      httpStatus: 413,
    });

    const batch = await http(`${api.url}/trpc/agents.create,agents.duplicate?batch=1`, {
      method: 'POST',
      key,
      rawBody: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(batch.status).toBe(415);
    expect(batch.json).toEqual(
      ['agents.create', 'agents.duplicate'].map((path) => ({
        error: {
          message: 'Content-Type must be application/json',
          code: TRPC_ERROR_CODES_BY_KEY.UNSUPPORTED_MEDIA_TYPE,
          data: {
            code: 'UNSUPPORTED_MEDIA_TYPE',
            httpStatus: 415,
            path,
            requestId: batch.headers.get('x-request-id'),
            appCode: 'UNSUPPORTED_MEDIA_TYPE',
          },
        },
      })),
    );
  });
});
