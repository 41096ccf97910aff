import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { CarrierEventSink, WorkflowStarter, WorkflowState } from '@voice/core';
import { inSpan, SpanKind, trace, context } from '@voice/telemetry';
import {
  AccountIdAttribute,
  AgentIdAttribute,
  CallStatusAttribute,
  CampaignIdAttribute,
  carrierEventSignal,
  conversationEndedSignal,
  endCallSignal,
  wakeCampaignSignal,
  workflowIds,
  type AgentTestWorkflow,
  type CallWorkflow,
  type CampaignWorkflow,
  type WebhookDeliveryWorkflow,
} from './contracts';

/** A workflow id names one execution: starting it again while it exists is not an error. */
async function once(start: Promise<unknown>): Promise<void> {
  try {
    await start;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return;
    throw error;
  }
}

/** Temporal's execution statuses, as core names them. */
const WORKFLOW_STATES: Record<string, WorkflowState> = {
  RUNNING: 'running',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'canceled',
  TERMINATED: 'terminated',
  CONTINUED_AS_NEW: 'continued_as_new',
  TIMED_OUT: 'timed_out',
};

/** Starts the service's workflows with their business ids and search attributes; a second start is a no-op. */
export interface WorkflowStarterOptions {
  /** History length after which a campaign run continues as new (the workflow's default when omitted). */
  campaignMaxHistoryEvents?: number;
}

export function createWorkflowStarter(
  client: Client,
  taskQueue: string,
  { campaignMaxHistoryEvents }: WorkflowStarterOptions = {},
): WorkflowStarter {
  const reportCarrierEvent = createCarrierEventSink(client);
  return {
    async startCallWorkflow({ callId, accountId, agentId, campaignId }) {
      const start = () =>
        once(
          client.workflow.start<CallWorkflow>('callWorkflow', {
            workflowId: workflowIds.call(callId),
            // A call runs once, ever: a late start (the relay after a lost `workflow_started_at`) of a
            // call whose workflow already closed must not start a second run.
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
            taskQueue,
            args: [{ callId }],
            typedSearchAttributes: [
              { key: AccountIdAttribute, value: accountId },
              ...(agentId ? [{ key: AgentIdAttribute, value: agentId }] : []),
              { key: CallStatusAttribute, value: 'initiated' },
              ...(campaignId ? [{ key: CampaignIdAttribute, value: campaignId }] : []),
            ],
          }),
        );
      // A campaign's call is a trace of its own (one per call, not one per campaign), linked to the
      // campaign's step that dialed it.
      const dialing = trace.getSpan(context.active())?.spanContext();
      if (!campaignId || !dialing) return start();
      return inSpan(
        'call.start',
        {
          root: true,
          kind: SpanKind.PRODUCER,
          attributes: { 'voice.call_id': callId, 'voice.campaign_id': campaignId },
          links: [{ context: dialing }],
        },
        start,
      );
    },
    async startAgentTest({ runId, accountId, agentId }) {
      await once(
        client.workflow.start<AgentTestWorkflow>('agentTestWorkflow', {
          workflowId: workflowIds.agentTest(runId),
          taskQueue,
          args: [{ runId }],
          typedSearchAttributes: [
            { key: AccountIdAttribute, value: accountId },
            { key: AgentIdAttribute, value: agentId },
          ],
        }),
      );
    },
    reportCarrierEvent: (callId, event) => reportCarrierEvent(callId, event),
    async endCall(callId, request) {
      try {
        await client.workflow.getHandle(workflowIds.call(callId)).signal(endCallSignal, request);
        return true;
      } catch (error) {
        // The call has ended: its workflow is closed.
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      }
    },
    async workflowState(kind, id) {
      const workflowId = kind === 'call' ? workflowIds.call(id) : workflowIds.webhookDelivery(id);
      try {
        const { status } = await client.workflow.getHandle(workflowId).describe();
        return WORKFLOW_STATES[status.name] ?? 'running';
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return 'missing';
        throw error;
      }
    },
    async conversationEnded(callId) {
      try {
        await client.workflow.getHandle(workflowIds.call(callId)).signal(conversationEndedSignal);
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }
    },
    async startWebhookDelivery({ deliveryId, accountId, agentId, retryScheduleMs }) {
      await once(
        client.workflow.start<WebhookDeliveryWorkflow>('webhookDeliveryWorkflow', {
          workflowId: workflowIds.webhookDelivery(deliveryId),
          // A delivery runs once: the relay starting one whose workflow already closed starts nothing.
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          taskQueue,
          args: [{ deliveryId, retryScheduleMs }],
          typedSearchAttributes: [
            { key: AccountIdAttribute, value: accountId },
            { key: AgentIdAttribute, value: agentId },
          ],
        }),
      );
    },
    async startCampaignWorkflow({ campaignId, accountId, agentId }) {
      await once(
        client.workflow.start<CampaignWorkflow>('campaignWorkflow', {
          workflowId: workflowIds.campaign(campaignId),
          taskQueue,
          args: [
            {
              campaignId,
              ...(campaignMaxHistoryEvents ? { maxHistoryEvents: campaignMaxHistoryEvents } : {}),
            },
          ],
          typedSearchAttributes: [
            { key: AccountIdAttribute, value: accountId },
            { key: AgentIdAttribute, value: agentId },
            { key: CampaignIdAttribute, value: campaignId },
          ],
        }),
      );
    },
    async wakeCampaign(campaignId) {
      try {
        await client.workflow.getHandle(workflowIds.campaign(campaignId)).signal(wakeCampaignSignal);
      } catch (error) {
        // A finished campaign has no workflow to wake.
        if (error instanceof WorkflowNotFoundError) return;
        throw error;
      }
    },
  };
}

/**
 * Hands a carrier's events to the call workflows, one signal each. An event for a call whose workflow
 * has closed changes nothing and is dropped.
 */
export function createCarrierEventSink(client: Client): CarrierEventSink {
  return async (callId, event) => {
    try {
      await client.workflow.getHandle(workflowIds.call(callId)).signal(carrierEventSignal, event);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return;
      throw error;
    }
  };
}
