export * from './paths';
export * from './ports';
export * from './temporal-server';
export * from './embedded-postgres';
export * from './typescript-process';
