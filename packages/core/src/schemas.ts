/**
 * The API's input schemas that run anywhere (zod only, no Node built-ins): what the dashboard imports
 * to validate its forms with the very rules and messages of the API.
 */
export * from './auth/schemas';
export * from './agents/schemas';
export * from './agents/placeholders';
export * from './calls/schemas';
export * from './analytics/schemas';
export { fromWall } from './time-zones';
export * from './campaigns/schemas';
export * from './campaigns/contacts-csv';
export * from './do-not-call/schemas';
export * from './phone-numbers/schemas';
export * from './validation-messages';
export * from './flows/schema';
export * from './flows/rules';
export * from './flows/validate-flow';
export * from './flows/templates';
