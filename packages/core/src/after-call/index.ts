// The end of a call, step by step: the media server stores the conversation, the worker analyses it,
// then the call-end step fires what follows (webhook events, notification emails, the campaign's wake).
export * from './store-conversation';
export * from './analyze-call';
export * from './reanalyze-call';
export * from './handle-call-ended';
