import {
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { CampaignStep } from '@voice/core';
import type { Activities } from '../activities';
import {
  campaignProgressQuery,
  wakeCampaignSignal,
  type CampaignProgress,
  type CampaignWorkflow,
} from '@voice/workflows';

const stepOptions = {
  // A step takes well under a second; should its worker die, another retries it after this long
  // (safely: the retried step finds its claimed contacts by the claim token).
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', backoffCoefficient: 2 },
} as const;
const { advanceCampaign } = proxyActivities<Activities>(stepOptions);
// A step as a local activity: run in the worker that runs the workflow task, with no round trip
// through the server to schedule it, so a call's end reaches the next dial sooner.
const { advanceCampaign: advanceCampaignHere } = proxyLocalActivities<Activities>(stepOptions);

/** Well below Temporal's 10,000-event suggestion: every run's history stays small and fast to replay. */
const MAX_HISTORY_EVENTS = 2_000;

/**
 * One campaign, from launch to completed or canceled. Postgres holds the campaign and its contacts;
 * each step (an activity) dials what may be dialed now and says how long to wait. The workflow adds
 * pacing (a token bucket of `dials_per_minute` holding two seconds' worth, so late timers do not
 * lose dials; a minute never sees more than `dials_per_minute` plus that much) and waits on a durable
 * timer or a wake-up signal. A call's end dials the next contact itself (dialAfterCallEnd, a step of
 * the same kind) and sends the signal only when the workflow must look: nothing was dialed, the campaign
 * finished, or it is paced (the bucket is the workflow's). It continues as new long before its
 * history grows large, carrying only the pacing state.
 */
export const campaignWorkflow: CampaignWorkflow = async ({
  campaignId,
  pacing,
  maxHistoryEvents = MAX_HISTORY_EVENTS,
}) => {
  // Runs recorded before steps became local activities scheduled them on the server; decided once a
  // run (a run in flight when the worker changes keeps its way until it continues as new).
  const local = patched('campaign-step-local');
  const step = local ? advanceCampaignHere : advanceCampaign;
  // Local steps that follow each other without a wait run in one workflow task, and their markers
  // join the history only when it completes: counted here, so a run still continues as new in time.
  let localSteps = 0;
  let woken = false;
  const progress: CampaignProgress = { status: 'running', dialed: 0, counts: null };
  setHandler(wakeCampaignSignal, () => {
    woken = true;
  });
  setHandler(campaignProgressQuery, () => progress);

  let tokens = pacing?.tokens ?? 1;
  let refilledAt = pacing?.at ?? Date.now();
  // Unknown until the first step reports it: that step dials one contact at most.
  let dialsPerMinute: number | null | undefined;
  // Workflow time moves on with every event, so the bucket fills for the time steps take as well.
  const refill = () => {
    const now = Date.now();
    if (dialsPerMinute) {
      const capacity = Math.max(1, dialsPerMinute / 30);
      tokens = Math.min(capacity, tokens + ((now - refilledAt) * dialsPerMinute) / 60_000);
    }
    refilledAt = now;
  };
  const untilNextToken = (perMinute: number) =>
    Math.max(1, Math.ceil(((1 - Math.min(tokens, 0.999)) * 60_000) / perMinute));
  for (;;) {
    refill();
    const budget: number =
      dialsPerMinute === undefined ? 1 : dialsPerMinute ? Math.floor(tokens + 1e-6) : 1_000;

    let waitMs: number;
    if (budget < 1 && dialsPerMinute) {
      waitMs = untilNextToken(dialsPerMinute);
    } else {
      const done: CampaignStep = await step(campaignId, budget, uuid4());
      if (local) localSteps += 1;
      progress.status = done.status;
      progress.dialed += done.dialed;
      progress.counts = done.counts ?? progress.counts;
      if (done.done) return done.status;
      if (done.dialsPerMinute) tokens -= done.dialed;
      dialsPerMinute = done.dialsPerMinute;
      refill();
      waitMs = done.blockedBy === 'pacing' && dialsPerMinute ? untilNextToken(dialsPerMinute) : done.sleepMs;
    }
    if (waitMs > 0 && !woken) await condition(() => woken, waitMs);
    woken = false;

    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength + localSteps > maxHistoryEvents) {
      await condition(allHandlersFinished);
      // A default threshold is not carried, so runs recorded before it existed continue as they did.
      return continueAsNew<CampaignWorkflow>({
        campaignId,
        pacing: { tokens, at: refilledAt },
        ...(maxHistoryEvents !== MAX_HISTORY_EVENTS ? { maxHistoryEvents } : {}),
      });
    }
  }
};
