export * from './emulator';
export * from './media-streams';
export * from './web-caller';
