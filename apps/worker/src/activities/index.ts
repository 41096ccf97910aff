import {
  advanceCampaign,
  attemptDelivery,
  checkCall,
  failDelivery,
  failNotificationEmail,
  handleCallEnded,
  placeCall,
  runDiagnostics,
  sendNotificationEmail,
  type CallRuntime,
  type CoreDeps,
} from '@voice/core';

/** Activities are built from the dependencies the worker was given; workflows see only their types. */
export const createActivities = (deps: CoreDeps & CallRuntime) => ({
  runDiagnostics: () => runDiagnostics(deps),
  placeCall: (callId: string) => placeCall(deps, callId),
  checkCall: (callId: string) => checkCall(deps, callId),
  handleCallEnded: (callId: string) => handleCallEnded(deps, callId),
  attemptDelivery: (deliveryId: string, number: number) => attemptDelivery(deps, { deliveryId, number }),
  failDelivery: (deliveryId: string) => failDelivery(deps, deliveryId),
  sendNotificationEmail: (emailId: string) => sendNotificationEmail(deps, emailId),
  failNotificationEmail: (emailId: string) => failNotificationEmail(deps, emailId),
  advanceCampaign: (campaignId: string, budget: number, claimToken: string) =>
    advanceCampaign(deps, { campaignId, budget, claimToken }),
});

export type Activities = ReturnType<typeof createActivities>;
