export * from './mulaw';
export * from './wav';
export * from './espeak';
export * from './half-band';
export * from './pcm';
