export * from './diagnostics.workflow';
export * from './call.workflow';
