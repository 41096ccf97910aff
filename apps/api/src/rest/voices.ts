import { ListVoicesOutput, listVoices } from '@voice/core';
import { defineRoute } from './route';

export const voiceRoutes = [
  defineRoute({
    operationId: 'listVoices',
    method: 'GET',
    path: '/v1/list-voices',
    summary: 'List the voice catalog',
    tag: 'Voices',
    response: ListVoicesOutput,
    handler: ({ deps }) => listVoices(deps),
  }),
];
