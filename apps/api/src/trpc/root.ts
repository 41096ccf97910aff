import { agentsRouter } from './routers/agents';
import { apiKeysRouter } from './routers/api-keys';
import { phoneNumbersRouter } from './routers/phone-numbers';
import { voicesRouter } from './routers/voices';
import { createCallerFactory, router } from './trpc';

export const appRouter = router({
  agents: agentsRouter,
  apiKeys: apiKeysRouter,
  phoneNumbers: phoneNumbersRouter,
  voices: voicesRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
