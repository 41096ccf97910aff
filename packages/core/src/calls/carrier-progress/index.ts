// A call's progress at the carrier, step by step as the call workflow takes them: the dial, the carrier's
// events (and the safety net's look when none came), the service ending the call, and the wait for a
// live conversation to be stored once the carrier reported the end.
export { CONVERSATION_GRACE_MS } from './conversation-wait';
export type { CallProgress } from './call-progress';
export { DEFAULT_DIAL_RETRY_BOUND_MS, placeCall, recordCarrierCallId } from './place-call';
export { applyCarrierEvents, checkCall } from './carrier-events';
export { endCallAtCarrier } from './service-end';
