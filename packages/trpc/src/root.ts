import { accountRouter } from './routers/account';
import { agentsRouter } from './routers/agents';
import { analyticsRouter } from './routers/analytics';
import { apiKeysRouter } from './routers/api-keys';
import { callsRouter } from './routers/calls';
import { campaignsRouter, doNotCallRouter } from './routers/campaigns';
import { carrierConnectionsRouter } from './routers/carrier-connections';
import { flowsRouter } from './routers/flows';
import { knowledgeRouter } from './routers/knowledge';
import { phoneNumbersRouter } from './routers/phone-numbers';
import { sessionRouter } from './routers/session';
import { voicesRouter } from './routers/voices';
import { webhooksRouter } from './routers/webhooks';
import { createCallerFactory, router } from './trpc';

export const appRouter = router({
  account: accountRouter,
  agents: agentsRouter,
  analytics: analyticsRouter,
  apiKeys: apiKeysRouter,
  calls: callsRouter,
  campaigns: campaignsRouter,
  carrierConnections: carrierConnectionsRouter,
  doNotCall: doNotCallRouter,
  flows: flowsRouter,
  knowledge: knowledgeRouter,
  phoneNumbers: phoneNumbersRouter,
  session: sessionRouter,
  voices: voicesRouter,
  webhooks: webhooksRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
