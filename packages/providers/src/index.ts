export * from './llm';
export * from './stt';
export * from './tts';
export * from './llm-env';
export * from './tts-env';
export * from './voice-samples';
