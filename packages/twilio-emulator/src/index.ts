export * from './emulator';
