export * from './emulator';
export * from './media-streams';
