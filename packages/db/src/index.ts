export { createDb } from './client';
export type { Db, CreateDbOptions } from './client';
export { Prisma, AgentType, CallStatus, IdempotencyState } from './generated/prisma/client';
export type {
  Account,
  Agent,
  AgentWebhook,
  Call,
  CallEvent,
  TestContact,
  ApiKey,
  IdempotencyKey,
  PhoneNumber,
  User,
  Voice,
} from './generated/prisma/client';
