export * from './document-text';
export * from './passages';
export * from './knowledge-bases';
export * from './text-search';
export * from './search-knowledge';
