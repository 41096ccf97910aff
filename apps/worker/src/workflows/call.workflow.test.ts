import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import { Worker } from '@temporalio/worker';
import {
  addPhoneNumber,
  AppError,
  createAccount,
  createAgent,
  createSimulatedCarrier,
  deterministicConversationEngine,
  dialCall,
  getCall,
  startPendingCallWorkflows,
  startPendingDeliveries,
  type CallRuntime,
  type Carrier,
  type CarrierCallState,
  type CarrierEvent,
  type CoreDeps,
} from '@voice/core';
import { startWebhookReceiver, testAgentInput } from '@voice/core/testing';
import { waitFor } from '@voice/dev';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTestServices, type TestServices } from '../../test/services';
import { CallStatusAttribute, workflowIds } from '@voice/workflows';
import { createCarrierEventSink, createWorkflowStarter } from '@voice/workflows/starters';
import { createActivities } from '../activities';
import { bundledSources, createWorker } from '../worker';

let services: TestServices;

let nativeConnection: NativeConnection;

let client: Client;
let deps: CoreDeps & CallRuntime;
let accountId: string;
let agentId: string;
const taskQueue = `calls-${randomUUID()}`;
const FROM = '+14155550100';

beforeAll(async () => {
  const made = await connectTestServices();
  services = made;
  ({ nativeConnection, client } = made);
  deps = {
    ...made.deps,
    workflows: createWorkflowStarter(client, taskQueue),
    // The simulator reports each call's events to its workflow, as a carrier's callbacks do.
    carrier: createSimulatedCarrier({
      dialMs: 20,
      ringMs: 60,
      talkMs: 150,
      events: createCarrierEventSink(client),
    }),
    conversation: deterministicConversationEngine,
  };
  const { account } = await createAccount(deps, { name: 'Calls' });
  accountId = account.id;
  const agent = await createAgent(
    deps,
    testAgentInput(accountId, {
      name: 'Caller',
      prompt: 'Confirm the appointment of {{patient}}.',
      welcome_message: 'Hello {{patient}}, this is the clinic.',
      variables_provided: [{ name: 'patient', default: 'there' }],
      variables_extracted: [{ name: 'slot', description: 'the preferred time' }],
    }),
  );
  agentId = agent.agent_id;
  await addPhoneNumber(deps, { accountId, phone_number: FROM });
  await deps.db.phoneNumber.update({ where: { number: FROM }, data: { agentId } });
});
afterAll(async () => {
  await services?.close();
});

async function runWorker<T>(fn: (worker: Worker) => Promise<T>, carrier = deps.carrier): Promise<T> {
  const worker = await createWorker({
    connection: nativeConnection,
    namespace: 'default',
    taskQueue,
    deps: { ...deps, carrier },
  });
  return worker.runUntil(() => fn(worker));
}

/**
 * A carrier that reports nothing by itself: the test sends its events. Its safety net looks after
 * `safetyNetMs` and finds the call in the state `fetched` gives.
 */
function scriptedCarrier(safetyNetMs: number, fetched: () => CarrierCallState) {
  const fetches: string[] = [];
  const carrierCallId = (callId: string) => `CA${callId.replaceAll('-', '')}`;
  const carrier: Carrier = {
    placeCall: async ({ callId }) => ({ carrierCallId: carrierCallId(callId) }),
    getCallState: async (carrierCallId) => {
      fetches.push(carrierCallId);
      return fetched();
    },
    safetyNetMs: () => safetyNetMs,
    findPlacedCalls: async () => [],
    hangUp: async () => {
      throw new Error('The scripted carrier does not hang up');
    },
    transfer: async () => {
      throw new Error('The scripted carrier does not transfer');
    },
    dialTransfer: async () => {
      throw new Error('The scripted carrier does not dial colleagues');
    },
    joinConference: async () => {
      throw new Error('The scripted carrier has no conferences');
    },
  };
  return { carrier, fetches, carrierCallId };
}

async function eventTimes(callId: string) {
  const events = await deps.db.callEvent.findMany({ where: { callId }, orderBy: { at: 'asc' } });
  return Object.fromEntries(events.map((event) => [event.status, event.at.toISOString()]));
}

const dial = (to: string, vars: Record<string, string> = {}) =>
  dialCall(deps, { accountId, from_number: FROM, to_number: to, vars_provided: vars });

/** Lifecycle order of statuses, for events at the same millisecond (busy ends at the first ring). */
const LIFECYCLE: Record<string, number> = { initiated: 0, ringing: 1, ongoing: 2 };

async function eventsOf(callId: string) {
  const events = await deps.db.callEvent.findMany({ where: { callId }, orderBy: { at: 'asc' } });
  return events
    .sort((a, b) => +a.at - +b.at || (LIFECYCLE[a.status] ?? 3) - (LIFECYCLE[b.status] ?? 3))
    .map((event) => [event.status, event.reason]);
}

describe('call workflow on a real dev server and worker', () => {
  const paths: [string, string, string | null, (string | null)[][]][] = [
    [
      '+14155550009',
      'ended',
      null,
      [
        ['initiated', null],
        ['ringing', null],
        ['ongoing', null],
        ['ended', null],
      ],
    ],
    [
      '+14155550007',
      'user_hangup',
      null,
      [
        ['initiated', null],
        ['ringing', null],
        ['ongoing', null],
        ['user_hangup', null],
      ],
    ],
    [
      '+14155550008',
      'agent_hangup',
      null,
      [
        ['initiated', null],
        ['ringing', null],
        ['ongoing', null],
        ['agent_hangup', null],
      ],
    ],
    [
      '+14155550001',
      'busy',
      'busy',
      [
        ['initiated', null],
        ['ringing', null],
        ['busy', 'busy'],
      ],
    ],
    [
      '+14155550002',
      'busy',
      'declined',
      [
        ['initiated', null],
        ['ringing', null],
        ['busy', 'declined'],
      ],
    ],
    [
      '+14155550003',
      'no_answer',
      'no_answer',
      [
        ['initiated', null],
        ['ringing', null],
        ['no_answer', 'no_answer'],
      ],
    ],
    [
      '+14155550004',
      'error',
      'not_in_service',
      [
        ['initiated', null],
        ['error', 'not_in_service'],
      ],
    ],
    [
      '+14155550005',
      'error',
      'carrier_rejected',
      [
        ['initiated', null],
        ['error', 'carrier_rejected'],
      ],
    ],
    [
      '+14155550006',
      'error',
      'failed',
      [
        ['initiated', null],
        ['error', 'failed'],
      ],
    ],
  ];

  it('drives every path to its terminal status, with every transition recorded in order', async () => {
    await runWorker(async () => {
      const dialed = await Promise.all(
        paths.map(([to]) => dial(to, { patient: 'Dana', _token: 'call-local' })),
      );
      for (const [index, [to, status, reason, events]] of paths.entries()) {
        const { call_id } = dialed[index]!;
        const handle = client.workflow.getHandle(workflowIds.call(call_id));
        expect(await handle.result(), to).toEqual({ status });
        const call = await getCall(deps, { accountId, callId: call_id });
        expect([call.call_status, call.disconnection_reason], to).toEqual([status, reason]);
        expect(await eventsOf(call_id), to).toEqual(events);
        expect((await handle.describe()).typedSearchAttributes.get(CallStatusAttribute), to).toBe(status);
        expect(call.vars_provided).toEqual({ patient: 'Dana' });

        const row = await deps.db.call.findUniqueOrThrow({ where: { id: call_id } });
        expect(row.endedAt, to).not.toBeNull();
        const connected = ['ended', 'user_hangup', 'agent_hangup'].includes(status);
        if (connected) {
          expect(call.duration_ms).toBeGreaterThanOrEqual(150);
          expect(call.start_timestamp + call.duration_ms).toBeLessThanOrEqual(row.endedAt!.getTime());
          expect(call.transcript[0]).toEqual({
            role: 'agent',
            content: 'Hello Dana, this is the clinic.',
            timestamp_ms: 0,
          });
          expect(call.transcript.every((entry) => entry.role !== 'system')).toBe(true);
          expect(Object.keys(call.vars_extracted)).toEqual(['slot']);
          expect(call.summary).toContain('slot=');
          expect(['male', 'female']).toContain(call.detected_gender);
          expect(call.recording_url).toMatch(new RegExp(`/recordings/${call_id}\\?expires=\\d+&signature=`));
        } else {
          expect(call.duration_ms).toBe(0);
          expect(call.transcript).toEqual([]);
          expect(call.recording_url).toBeNull();
        }
      }
    });
  });

  it('starts a call whose workflow start failed, through the relay, and completes it', async () => {
    const withoutTemporal = {
      ...deps,
      workflows: { ...deps.workflows, startCallWorkflow: () => Promise.reject(new Error('down')) },
    };
    const { call_id } = await dialCall(withoutTemporal, {
      accountId,
      from_number: FROM,
      to_number: '+14155550009',
    });
    const row = await deps.db.call.findUniqueOrThrow({ where: { id: call_id } });
    expect([row.status, row.workflowStartedAt]).toEqual(['initiated', null]);
    const description = client.workflow.getHandle(workflowIds.call(call_id)).describe();
    await expect(description).rejects.toThrow();

    await runWorker(async () => {
      expect(await startPendingCallWorkflows(deps, { olderThanMs: 0 })).toBeGreaterThanOrEqual(1);
      expect(await client.workflow.getHandle(workflowIds.call(call_id)).result()).toEqual({
        status: 'ended',
      });
    });
    const after = await deps.db.call.findUniqueOrThrow({ where: { id: call_id } });
    expect(after.workflowStartedAt).not.toBeNull();
    // A second relay pass finds nothing to do.
    expect(await startPendingCallWorkflows(deps, { olderThanMs: 0 })).toBe(0);
  });

  it('survives its worker stopping mid-call: another worker finishes it with a consistent row', async () => {
    // The simulated call's times run from the dial whatever the worker does: its talk outlasts a worker
    // picking the call up late on a starved machine, so the row is seen ongoing before the call ends.
    const slow = { ...deps, carrier: createSimulatedCarrier({ dialMs: 20, ringMs: 60, talkMs: 6_000 }) };
    const { call_id } = await dialCall(slow, { accountId, from_number: FROM, to_number: '+14155550009' });
    const first = await createWorker({
      connection: nativeConnection,
      namespace: 'default',
      taskQueue,
      deps: slow,
    });
    await first.runUntil(async () => {
      // Up to 40 s: a worker starting on a busy machine (its workflow bundle built while other suites
      // run) takes a while to pick the call up.
      let status = '';
      for (let i = 0; i < 800; i += 1) {
        ({ status } = await deps.db.call.findUniqueOrThrow({ where: { id: call_id } }));
        if (status === 'ongoing') return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // Where it stopped: the row's status, and the workflow's (never started: the relay's case).
      const workflow = await client.workflow
        .getHandle(workflowIds.call(call_id))
        .describe()
        .then(
          (description) => `${description.status.name}, ${description.historyLength} events`,
          (error: unknown) => String(error),
        );
      throw new Error(`the call never connected: its row ${status}, its workflow ${workflow}`);
    });
    expect((await deps.db.call.findUniqueOrThrow({ where: { id: call_id } })).status).toBe('ongoing');

    const second = await createWorker({
      connection: nativeConnection,
      namespace: 'default',
      taskQueue,
      deps: slow,
    });
    await second.runUntil(() => client.workflow.getHandle(workflowIds.call(call_id)).result());
    const call = await getCall(deps, { accountId, callId: call_id });
    expect(call.call_status).toBe('ended');
    expect(call.duration_ms).toBe(6_000);
    expect(await eventsOf(call_id)).toEqual([
      ['initiated', null],
      ['ringing', null],
      ['ongoing', null],
      ['ended', null],
    ]);
  }, 120_000);

  it('applies duplicated, reordered and foreign carrier events once, in the carrier order', async () => {
    const scripted = scriptedCarrier(600_000, () => ({ phase: 'dialing', nextCheckInMs: 600_000 }));
    const { call_id } = await dial('+14155550009');
    const carrierCallId = scripted.carrierCallId(call_id);
    const sink = createCarrierEventSink(client);
    const t0 = Date.now();
    const at = (ms: number) => new Date(t0 + ms).toISOString();
    const answered: CarrierEvent = { carrierCallId, kind: 'answered', at: at(200), sequence: 2 };
    const ended: CarrierEvent = {
      carrierCallId,
      kind: 'ended',
      outcome: 'user_hangup',
      at: at(3_700),
      durationMs: 3_500,
      sequence: 3,
    };
    await runWorker(async () => {
      // Another carrier call's end (a stale or foreign callback) must not end this one.
      await sink(call_id, { ...ended, carrierCallId: 'CAforeign', outcome: 'busy', durationMs: 0 });
      await sink(call_id, answered);
      await sink(call_id, { carrierCallId, kind: 'ringing', at: at(100), sequence: 1 });
      await sink(call_id, answered);
      await waitFor(
        'the answer to be recorded',
        10_000,
        async () => (await deps.db.call.findUniqueOrThrow({ where: { id: call_id } })).status === 'ongoing',
      );
      await sink(call_id, ended);
      // A second report of the end, later: the first end stands.
      await sink(call_id, { ...ended, at: at(9_000), durationMs: 7_000, outcome: 'completed' });
      return client.workflow.getHandle(workflowIds.call(call_id)).result();
    }, scripted.carrier);

    const call = await getCall(deps, { accountId, callId: call_id });
    expect(call.call_status).toBe('user_hangup');
    expect(call.duration_ms).toBe(3_500);
    expect(await eventsOf(call_id)).toEqual([
      ['initiated', null],
      ['ringing', null],
      ['ongoing', null],
      ['user_hangup', null],
    ]);
    const times = await eventTimes(call_id);
    expect([times.ongoing, times.user_hangup]).toEqual([at(200), at(3_700)]);
    expect(scripted.fetches).toEqual([]);
  });

  it('asks the carrier when no event comes: a lost callback does not leave the call hanging', async () => {
    let endedAt = new Date();
    const scripted = scriptedCarrier(300, () => ({
      phase: 'ended',
      outcome: 'no_answer',
      answeredAt: null,
      endedAt,
    }));
    const { call_id } = await dial('+14155550009');
    // Ended after it was created: no transition is recorded before a call's creation.
    endedAt = new Date();
    const result = await runWorker(
      () => client.workflow.getHandle(workflowIds.call(call_id)).result(),
      scripted.carrier,
    );
    expect(result).toEqual({ status: 'no_answer' });
    expect(scripted.fetches).toEqual([scripted.carrierCallId(call_id)]);
    const call = await getCall(deps, { accountId, callId: call_id });
    expect([call.call_status, call.disconnection_reason]).toEqual(['no_answer', 'no_answer']);
    expect((await eventTimes(call_id)).no_answer).toBe(endedAt.toISOString());
  });

  it('ends a call error when a step fails for good: hung up at the carrier, its webhook sent', async () => {
    const receiver = await startWebhookReceiver();
    const hangUps: string[] = [];
    const scripted = scriptedCarrier(200, () => {
      throw new AppError('VALIDATION_FAILED', 'The carrier answered something this service cannot read');
    });
    const carrier: Carrier = {
      ...scripted.carrier,
      hangUp: async (carrierCallId) => void hangUps.push(carrierCallId),
    };
    const hooked = { ...deps, config: { ...deps.config, webhookAllowedHosts: [receiver.host] } };
    const from = '+14155550177';
    const agent = await createAgent(
      hooked,
      testAgentInput(accountId, {
        name: 'Hooked caller',
        webhooks: [{ name: 'receiver', url: `http://${receiver.host}/hook` }],
      }),
    );
    await addPhoneNumber(deps, { accountId, phone_number: from });
    await deps.db.phoneNumber.update({ where: { number: from }, data: { agentId: agent.agent_id } });
    const { call_id } = await dialCall(deps, { accountId, from_number: from, to_number: '+14155550009' });
    try {
      const worker = await createWorker({
        connection: nativeConnection,
        namespace: 'default',
        taskQueue,
        deps: { ...hooked, carrier },
      });
      const result = await worker.runUntil(async () => {
        const ended = await client.workflow.getHandle(workflowIds.call(call_id)).result();
        await waitFor('the call_ended webhook', 20_000, async () => receiver.received.length === 1);
        return ended;
      });
      expect(result).toEqual({ status: 'error' });
    } finally {
      receiver.close();
    }
    expect(hangUps).toEqual([scripted.carrierCallId(call_id)]);
    const call = await getCall(deps, { accountId, callId: call_id });
    expect([call.call_status, call.disconnection_reason]).toEqual(['error', 'failed']);
    expect((await eventsOf(call_id)).at(-1)).toEqual(['error', 'workflow_failed']);
    const sent = JSON.parse(receiver.received[0]!.body);
    expect([sent.event, sent.call.call_id, sent.call.call_status]).toEqual(['call_ended', call_id, 'error']);
  });

  it('completes when the relay started its delivery first (between the call-end step and the start)', async () => {
    // The window: the call-end step committed the call_ended delivery, and before the workflow starts
    // its delivery workflow the relay (or the reconciler) starts it, and that one is still running (its
    // receiver has not answered). The call workflow leaves the delivery to it and completes.
    let answer: () => void = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const bodies: string[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        bodies.push(body);
        void answered.then(() => res.writeHead(200).end());
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const hooked = { ...deps, config: { ...deps.config, webhookAllowedHosts: [host] } };
    const from = '+14155550178';
    const agent = await createAgent(
      hooked,
      testAgentInput(accountId, {
        name: 'Relayed caller',
        webhooks: [{ name: 'receiver', url: `http://${host}/hook` }],
      }),
    );
    await addPhoneNumber(deps, { accountId, phone_number: from });
    await deps.db.phoneNumber.update({ where: { number: from }, data: { agentId: agent.agent_id } });
    const { call_id } = await dialCall(deps, { accountId, from_number: from, to_number: '+14155550009' });
    const activities = createActivities(hooked);
    let relayed = 0;
    try {
      const worker = await Worker.create({
        connection: nativeConnection,
        namespace: 'default',
        taskQueue,
        workflowBundle: await bundledSources(),
        activities: {
          ...activities,
          handleCallEnded: async (...args: Parameters<typeof activities.handleCallEnded>) => {
            const ended = await activities.handleCallEnded(...args);
            relayed += await startPendingDeliveries(hooked, { olderThanMs: 0 });
            // The relayed delivery's first attempt is waiting on the receiver.
            await waitFor('the relayed attempt', 10_000, async () => bodies.length === 1);
            return ended;
          },
        },
      });
      const result = await worker.runUntil(async () => {
        const ended = await client.workflow.getHandle(workflowIds.call(call_id)).result();
        answer();
        await waitFor('the delivery', 20_000, async () => {
          const [delivery] = await deps.db.webhookDelivery.findMany({
            where: { event: { callId: call_id } },
          });
          return delivery?.status === 'delivered';
        });
        return ended;
      });
      expect(result).toEqual({ status: 'ended' });
    } finally {
      answer();
      receiver.closeAllConnections();
      receiver.close();
    }
    expect(relayed).toBe(1);
    expect(bodies).toHaveLength(1);
    expect(JSON.parse(bodies[0]!).call.call_id).toBe(call_id);
  });

  it('fails at once, without retrying, for a call row that does not exist', async () => {
    const missing = randomUUID();
    const started = Date.now();
    const error = await runWorker(() =>
      client.workflow
        .execute('callWorkflow', {
          taskQueue,
          workflowId: workflowIds.call(missing),
          args: [{ callId: missing }],
        })
        .catch((failure: unknown) => failure),
    );
    expect(error).toBeInstanceOf(WorkflowFailedError);
    // The local activity's failure, as the workflow saw it and failed with.
    const cause = (error as WorkflowFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect(cause).toMatchObject({ type: 'NOT_FOUND', nonRetryable: true });
    expect(cause?.message).toBe(`Call ${missing} does not exist`);
    // One attempt: the retry policy's first backoff alone would take 500 ms and more.
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
