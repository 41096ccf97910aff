import { z } from 'zod';
import {
  CarrierConnectionIdInput,
  CarrierConnectionView,
  CreateCarrierConnectionInput,
  DeleteCarrierConnectionResult,
  UpdateCarrierConnectionFields,
  createCarrierConnection,
  deleteCarrierConnection,
  getCarrierConnection,
  listCarrierConnections,
  updateCarrierConnection,
} from '@voice/core';
import { defineRoute } from './route';

const TAG = 'Carrier connections';

/** The account's own Twilio accounts (docs/telephony.md): credentials checked with Twilio, never returned. */
export const carrierConnectionRoutes = [
  defineRoute({
    operationId: 'createCarrierConnection',
    method: 'POST',
    path: '/functions/v1/carrier-connection-create',
    summary: "Connect the account's Twilio account (credentials are checked with Twilio, then sealed)",
    tag: TAG,
    body: CreateCarrierConnectionInput,
    response: CarrierConnectionView,
    successStatus: 201,
    errors: [400, 409, 422, 502],
    handler: ({ deps, auth }, { body }) =>
      createCarrierConnection(deps, { accountId: auth.accountId, ...body }),
  }),
  defineRoute({
    operationId: 'listCarrierConnections',
    method: 'GET',
    path: '/functions/v1/carrier-connection-list',
    summary: "List the account's carrier connections and the numbers each has",
    tag: TAG,
    response: z.array(CarrierConnectionView),
    handler: ({ deps, auth }) => listCarrierConnections(deps, { accountId: auth.accountId }),
  }),
  defineRoute({
    operationId: 'getCarrierConnection',
    method: 'GET',
    path: '/functions/v1/carrier-connection-get/{carrier_connection_id}',
    summary: 'Get a carrier connection',
    tag: TAG,
    params: CarrierConnectionIdInput,
    response: CarrierConnectionView,
    errors: [404],
    handler: ({ deps, auth }, { params }) =>
      getCarrierConnection(deps, { accountId: auth.accountId, ...params }),
  }),
  defineRoute({
    operationId: 'updateCarrierConnection',
    method: 'PATCH',
    path: '/functions/v1/carrier-connection-update/{carrier_connection_id}',
    summary:
      "Replace a connection's credentials (a rotated auth token or API key), checked with Twilio first",
    tag: TAG,
    params: CarrierConnectionIdInput,
    body: UpdateCarrierConnectionFields,
    response: CarrierConnectionView,
    errors: [400, 404, 422, 502],
    handler: ({ deps, auth }, { params, body }) =>
      updateCarrierConnection(deps, { accountId: auth.accountId, ...params, fields: body }),
  }),
  defineRoute({
    operationId: 'deleteCarrierConnection',
    method: 'DELETE',
    path: '/functions/v1/carrier-connection-delete/{carrier_connection_id}',
    summary: 'Disconnect a Twilio account that no number uses any more',
    tag: TAG,
    params: CarrierConnectionIdInput,
    response: DeleteCarrierConnectionResult,
    errors: [404, 409],
    handler: ({ deps, auth }, { params }) =>
      deleteCarrierConnection(deps, { accountId: auth.accountId, ...params }),
  }),
];
