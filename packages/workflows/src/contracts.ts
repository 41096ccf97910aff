import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { CampaignCounts, CarrierEvent, ServiceEnd } from '@voice/core';

/**
 * What the worker's workflows and everything that starts or signals them agree on: task queue,
 * search attributes, workflow ids, workflow types and signatures, signals and queries. Workflow code
 * imports this module, so it stays free of Node APIs.
 */

export const DEFAULT_TASK_QUEUE = 'voice-agent';

/** Registered on the dev server at start (packages/dev) and on production clusters (docs/temporal.md). */
export const AccountIdAttribute = defineSearchAttributeKey('AccountId', SearchAttributeType.KEYWORD);
export const AgentIdAttribute = defineSearchAttributeKey('AgentId', SearchAttributeType.KEYWORD);
export const CampaignIdAttribute = defineSearchAttributeKey('CampaignId', SearchAttributeType.KEYWORD);
export const CallStatusAttribute = defineSearchAttributeKey('CallStatus', SearchAttributeType.KEYWORD);

/** Workflow ids are business ids, never personal data. */
export const workflowIds = {
  diagnostics: (runId: string) => `diagnostics-${runId}`,
  call: (callId: string) => `call-${callId}`,
  webhookDelivery: (deliveryId: string) => `webhook-${deliveryId}`,
  campaign: (campaignId: string) => `campaign-${campaignId}`,
  agentTest: (runId: string) => `agent-test-${runId}`,
};

/**
 * The task queue the media servers poll for the activities that need the live conversation engine (an
 * agent test's text conversations): the worker's own, with `.media` after it.
 */
export const mediaTaskQueue = (taskQueue: string) => `${taskQueue}.media`;

export interface CallWorkflowInput {
  callId: string;
}
export type CallWorkflow = (input: CallWorkflowInput) => Promise<{ status: string }>;

export interface WebhookDeliveryInput {
  deliveryId: string;
  /** Delays before each retry, in milliseconds; no secrets or payloads ever enter a workflow. */
  retryScheduleMs: number[];
}
export type WebhookDeliveryWorkflow = (input: WebhookDeliveryInput) => Promise<string>;

export interface CampaignWorkflowInput {
  campaignId: string;
  /** Pacing state carried across continue-as-new. */
  pacing?: { tokens: number; at: number };
  /** History length after which a run continues as new; 2,000 when omitted (tests lower it). */
  maxHistoryEvents?: number;
}
export type CampaignWorkflow = (input: CampaignWorkflowInput) => Promise<string>;

export interface AgentTestWorkflowInput {
  runId: string;
}
export type AgentTestWorkflow = (input: AgentTestWorkflowInput) => Promise<string>;

/** A change of the call the carrier reported (a status callback, or the simulator's report). */
export const carrierEventSignal = defineSignal<[CarrierEvent]>('carrierEvent');

/** The service ends the call itself: an operator's hang-up or transfer, or the agent's decision. */
export const endCallSignal = defineSignal<[ServiceEnd]>('endCall');

/** The media server stored the call's conversation: the call may end now that the carrier has. */
export const conversationEndedSignal = defineSignal('conversationEnded');

/** Look at the campaign again: a call ended, contacts were added, or it was paused, resumed or canceled. */
export const wakeCampaignSignal = defineSignal('wakeCampaign');

export interface CampaignProgress {
  status: string;
  /** Dials of this run's own steps; a campaign call's end dials the next contact itself (not counted). */
  dialed: number;
  counts: CampaignCounts | null;
}
export const campaignProgressQuery = defineQuery<CampaignProgress>('campaignProgress');
