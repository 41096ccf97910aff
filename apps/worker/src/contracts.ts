import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { CampaignCounts } from '@voice/core';

/**
 * Names shared by workflows, the worker and the API: task queue, search attributes, workflow ids,
 * and (as workflows grow) their signals, queries and updates.
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
};

export interface CallWorkflowInput {
  callId: string;
}

export interface WebhookDeliveryInput {
  deliveryId: string;
  /** Delays before each retry, in milliseconds; no secrets or payloads ever enter a workflow. */
  retryScheduleMs: number[];
}

export interface CampaignWorkflowInput {
  campaignId: string;
  /** Pacing state carried across continue-as-new. */
  pacing?: { tokens: number; at: number };
}

/** Look at the campaign again: a call ended, contacts were added, or it was paused, resumed or canceled. */
export const wakeCampaignSignal = defineSignal('wakeCampaign');

export interface CampaignProgress {
  status: string;
  dialed: number;
  counts: CampaignCounts | null;
}
export const campaignProgressQuery = defineQuery<CampaignProgress>('campaignProgress');
