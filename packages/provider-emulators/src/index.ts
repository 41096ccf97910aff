export * from './llm-emulator';
export * from './stt-emulator';
export * from './demo';
export * from './tts-emulator';
export * from './s3-emulator';
export * from './realtime-transcription';
export * from './demo-calendar';
