import { log } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  advanceCampaign,
  beginAgentTest,
  failAgentTestScenario,
  finishAgentTest,
  gradeAgentTestScenario,
  analyzeCall,
  applyCarrierEvents,
  attemptDelivery,
  checkCall,
  endCallAtCarrier,
  failCall,
  failDelivery,
  failNotificationEmail,
  handleCallEnded,
  isPermanentError,
  placeCall,
  runDiagnostics,
  sendNotificationEmail,
  type CallRuntime,
  type CarrierEvent,
  type CoreDeps,
  type ServiceEnd,
} from '@voice/core';

/**
 * A permanent domain error (a call row that does not exist, invalid data) fails the activity for good
 * instead of being retried forever; anything else (the database or a network down) is retried under
 * the caller's retry policy.
 */
function failPermanently<A extends unknown[], R>(activity: (...args: A) => Promise<R>) {
  return async (...args: A): Promise<R> => {
    try {
      return await activity(...args);
    } catch (error) {
      if (isPermanentError(error)) throw ApplicationFailure.nonRetryable(error.message, permanentType(error));
      throw error;
    }
  };
}

const permanentType = (error: Error) => ('code' in error ? String(error.code) : error.name);

/** Activities are built from the dependencies the worker was given; workflows see only their types. */
export const createActivities = (deps: CoreDeps & CallRuntime) => ({
  runDiagnostics: failPermanently(() => runDiagnostics(deps)),
  placeCall: failPermanently((callId: string) => placeCall(deps, callId)),
  checkCall: failPermanently((callId: string) => checkCall(deps, callId)),
  applyCarrierEvents: failPermanently((callId: string, events: CarrierEvent[]) =>
    applyCarrierEvents(deps, callId, events),
  ),
  endCallAtCarrier: failPermanently((callId: string, request: ServiceEnd) =>
    endCallAtCarrier(deps, callId, request),
  ),
  failCall: failPermanently((callId: string) => failCall(deps, callId)),
  handleCallEnded: failPermanently((callId: string, options?: { wakeCampaign?: boolean }) =>
    handleCallEnded(deps, callId, {
      ...options,
      onCampaignStepError: (error) =>
        log.warn('campaign step at the call end failed; the campaign workflow steps instead', {
          callId,
          error: error instanceof Error ? error.message : String(error),
        }),
    }),
  ),
  analyzeCall: failPermanently((callId: string) => analyzeCall(deps, callId)),
  attemptDelivery: failPermanently((deliveryId: string, number: number) =>
    attemptDelivery(deps, { deliveryId, number }),
  ),
  failDelivery: failPermanently((deliveryId: string) => failDelivery(deps, deliveryId)),
  sendNotificationEmail: failPermanently((emailId: string) => sendNotificationEmail(deps, emailId)),
  failNotificationEmail: failPermanently((emailId: string) => failNotificationEmail(deps, emailId)),
  advanceCampaign: failPermanently((campaignId: string, budget: number, claimToken: string) =>
    advanceCampaign(deps, { campaignId, budget, claimToken }),
  ),
  beginAgentTest: failPermanently((runId: string) => beginAgentTest(deps, runId)),
  gradeAgentTestScenario: failPermanently((runId: string, index: number) =>
    gradeAgentTestScenario(deps, { runId, index }),
  ),
  failAgentTestScenario: failPermanently((runId: string, index: number, reason: string) =>
    failAgentTestScenario(deps, { runId, index, reason }),
  ),
  finishAgentTest: failPermanently((runId: string) => finishAgentTest(deps, runId)),
});

export type Activities = ReturnType<typeof createActivities>;
