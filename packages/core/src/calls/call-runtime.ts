import type { Mailer } from '../notifications/mailer';
import type { Carrier, StructuredModel } from '../ports';
import type { ConversationEngine } from './simulated/conversation';

/** What the call workflow needs besides the core dependencies. */
export interface CallRuntime {
  carrier: Carrier;
  conversation: ConversationEngine;
  /** SMTP for notification emails; without it they stay in the outbox table. */
  mailer?: Mailer;
  /** The language model that analyses live conversations after the call; without it they stay unanalysed. */
  analyst?: StructuredModel;
}
