import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { CarrierEvent } from '@voice/core';
import type { Db } from '@voice/db';
import { waitFor } from '@voice/dev';
import { workflowIds } from '@voice/workflows';
import type { createScriptedCarrier, ScriptedEvent } from './scripted-carrier';

/** What some workflows cost the Temporal server, from their histories. */
export interface WorkflowWork {
  workflows: number;
  workflow_tasks: number;
  activities: number;
  local_activities: number;
  timers: number;
  history_events: number;
}

/** Sums the work in the histories of the workflows with these ids (each one's latest run). */
export async function workflowWork(client: Client, workflowIds: readonly string[]): Promise<WorkflowWork> {
  const work: WorkflowWork = {
    workflows: 0,
    workflow_tasks: 0,
    activities: 0,
    local_activities: 0,
    timers: 0,
    history_events: 0,
  };
  for (const id of workflowIds) {
    const history = await client.workflow.getHandle(id).fetchHistory();
    const { events } = JSON.parse(historyToJSON(history)) as {
      events: { eventType: string; markerRecordedEventAttributes?: { markerName: string } }[];
    };
    work.workflows += 1;
    work.history_events += events.length;
    for (const event of events) {
      if (event.eventType === 'EVENT_TYPE_WORKFLOW_TASK_COMPLETED') work.workflow_tasks += 1;
      else if (event.eventType === 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED') work.activities += 1;
      else if (event.eventType === 'EVENT_TYPE_TIMER_STARTED') work.timers += 1;
      else if (event.markerRecordedEventAttributes?.markerName === 'core_local_activity')
        work.local_activities += 1;
    }
  }
  return work;
}

/**
 * Waits until a running workflow has nothing in flight: no workflow task (the local activities run
 * inside one) and no activity. What reaches it next then starts a workflow task of its own, so the
 * work counted does not depend on how fast the machine is.
 */
export async function settled(client: Client, workflowId: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { raw, status } = await client.workflow.getHandle(workflowId).describe();
    if (status.name !== 'RUNNING') return;
    if (!raw.pendingWorkflowTask && (raw.pendingActivities ?? []).length === 0) return;
    if (Date.now() > deadline) throw new Error(`${workflowId} did not settle in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * How a test says what the scripted carrier reports: the event remembered and reported to the call's
 * workflow, which has done with it when the returned promise resolves.
 */
export function carrierReports(
  client: Client,
  scripted: ReturnType<typeof createScriptedCarrier>,
  report: (callId: string, event: CarrierEvent) => Promise<void>,
) {
  return async (callId: string, event: ScriptedEvent) => {
    await report(callId, scripted.event(callId, event));
    await settled(client, workflowIds.call(callId));
  };
}

/** The id of the `n`th call a campaign placed, once there is one and its workflow has settled. */
export async function campaignCall(db: Db, client: Client, campaignId: string, n: number): Promise<string> {
  let callId = '';
  await waitFor(`the campaign's call ${n}`, 20_000, async () => {
    const calls = await db.call.findMany({ where: { campaignId }, orderBy: { createdAt: 'asc' } });
    callId = calls[n - 1]?.id ?? '';
    return callId !== '';
  });
  await settled(client, workflowIds.call(callId));
  return callId;
}
