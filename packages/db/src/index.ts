export { createDb } from './client';
export { listen, type Listener, type ListenOptions } from './listen';
export { leadership, type Leadership } from './leadership';
export type { Db, CreateDbOptions } from './client';
export {
  Prisma,
  AgentType,
  CallStatus,
  CampaignStatus,
  CampaignContactState,
  IdempotencyState,
} from './generated/prisma/client';
export type {
  Account,
  Agent,
  AgentTestRun,
  AgentWebhook,
  Call,
  CallEvent,
  Campaign,
  CampaignContact,
  DoNotCallEntry,
  NotificationEmail,
  TestContact,
  ApiKey,
  IdempotencyKey,
  PhoneNumber,
  User,
  Voice,
} from './generated/prisma/client';
