import { agentRoutes } from './agents';
import { callRoutes } from './calls';
import { phoneNumberRoutes } from './phone-numbers';
import type { AnyRestRoute } from './route';
import { voiceRoutes } from './voices';

/** Every REST operation the API serves. */
export const restRoutes: readonly AnyRestRoute[] = [
  ...agentRoutes,
  ...callRoutes,
  ...phoneNumberRoutes,
  ...voiceRoutes,
];
