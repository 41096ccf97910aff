export * from './carrier';
export * from './simulated-carrier';
export * from './media-stream';
export * from './twilio/status-callback';
export * from './twilio/signature';
export * from './twilio/accounts';
