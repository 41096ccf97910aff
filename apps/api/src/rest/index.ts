import { agentRoutes } from './agents';
import { analyticsRoutes } from './analytics';
import { callRoutes } from './calls';
import { campaignRoutes } from './campaigns';
import { carrierConnectionRoutes } from './carrier-connections';
import { phoneNumberRoutes } from './phone-numbers';
import type { AnyRestRoute } from './route';
import { voiceRoutes } from './voices';

/** Every REST operation the API serves. */
export const restRoutes: readonly AnyRestRoute[] = [
  ...agentRoutes,
  ...analyticsRoutes,
  ...callRoutes,
  ...campaignRoutes,
  ...carrierConnectionRoutes,
  ...phoneNumberRoutes,
  ...voiceRoutes,
];
