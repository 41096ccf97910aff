import { agentRoutes } from './agents';
import { callRoutes } from './calls';
import { campaignRoutes } from './campaigns';
import { phoneNumberRoutes } from './phone-numbers';
import type { AnyRestRoute } from './route';
import { voiceRoutes } from './voices';

/** Every REST operation the API serves. */
export const restRoutes: readonly AnyRestRoute[] = [
  ...agentRoutes,
  ...callRoutes,
  ...campaignRoutes,
  ...phoneNumberRoutes,
  ...voiceRoutes,
];
