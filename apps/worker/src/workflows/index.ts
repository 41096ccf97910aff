export * from './diagnostics.workflow';
export * from './call.workflow';
export * from './webhook-delivery.workflow';
export * from './campaign.workflow';
export * from './agent-test.workflow';
