export { createDb } from './client';
export type { Db, CreateDbOptions } from './client';
export { Prisma, AgentType, IdempotencyState } from './generated/prisma/client';
export type {
  Account,
  Agent,
  AgentWebhook,
  ApiKey,
  IdempotencyKey,
  PhoneNumber,
  User,
  Voice,
} from './generated/prisma/client';
