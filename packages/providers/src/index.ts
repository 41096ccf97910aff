export * from './llm';
export * from './stt';
export * from './tts';
export * from './llm-env';
