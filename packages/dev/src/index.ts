export * from './paths';
export * from './ports';
export * from './temporal-server';
export * from './embedded-postgres';
