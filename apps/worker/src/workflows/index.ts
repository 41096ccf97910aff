export * from './diagnostics.workflow';
