export * from './document-text';
export * from './passages';
export * from './knowledge-bases';
