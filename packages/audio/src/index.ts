export * from './mulaw';
export * from './wav';
export * from './espeak';
