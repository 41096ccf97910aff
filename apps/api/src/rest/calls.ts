import { z } from 'zod';
import {
  CallIdParams,
  CallListOutput,
  CreatePhoneCallInput,
  DialCallInput,
  DialCallOutput,
  FullCall,
  ListCallsInput,
  OlderFullCall,
  OlderLightweightCall,
  UpdateCallInput,
  dialCallIdempotently,
  getCall,
  getOlderCall,
  listCalls,
  listOlderCalls,
  updateCallMetadata,
} from '@voice/core';
import { defineRoute } from './route';

const TAG = 'Calls';

export const callRoutes = [
  defineRoute({
    operationId: 'dialCall',
    dials: true,
    method: 'POST',
    path: '/functions/v1/call-dial',
    summary: 'Place an outbound call (honours Idempotency-Key)',
    tag: TAG,
    body: DialCallInput,
    response: DialCallOutput,
    successStatus: 201,
    errors: [400, 403, 404, 409, 422],
    handler: async ({ deps, auth, idempotencyKey }, { body }) =>
      (await dialCallIdempotently(deps, { accountId: auth.accountId, idempotencyKey, ...body })).body,
  }),
  defineRoute({
    operationId: 'createPhoneCall',
    dials: true,
    method: 'POST',
    path: '/v1/create-phone-call',
    summary: 'Place an outbound call (older form, dynamic_variables; honours Idempotency-Key)',
    tag: TAG,
    body: CreatePhoneCallInput,
    response: DialCallOutput,
    successStatus: 201,
    errors: [400, 403, 404, 409, 422],
    handler: async ({ deps, auth, idempotencyKey }, { body: { dynamic_variables, ...body } }) =>
      (
        await dialCallIdempotently(deps, {
          accountId: auth.accountId,
          idempotencyKey,
          ...body,
          vars_provided: dynamic_variables,
        })
      ).body,
  }),
  defineRoute({
    operationId: 'getCall',
    method: 'GET',
    path: '/functions/v1/call-get/{call_id}',
    summary: 'Get a call: status, timing, transcript, recording link, analysis',
    tag: TAG,
    params: CallIdParams,
    response: FullCall,
    errors: [404],
    handler: ({ deps, auth }, { params }) =>
      getCall(deps, { accountId: auth.accountId, callId: params.call_id }),
  }),
  defineRoute({
    operationId: 'listCalls',
    method: 'POST',
    path: '/functions/v1/call-list',
    summary: 'List calls by start time with filters and paging',
    tag: TAG,
    body: ListCallsInput,
    response: CallListOutput,
    errors: [400],
    handler: ({ deps, auth }, { body }) => listCalls(deps, { accountId: auth.accountId, ...body }),
  }),
  defineRoute({
    operationId: 'listCallsOlder',
    method: 'POST',
    path: '/v1/list-calls',
    summary: 'List calls (older shape, bare array)',
    tag: TAG,
    body: ListCallsInput,
    response: z.array(OlderLightweightCall),
    errors: [400],
    handler: ({ deps, auth }, { body }) => listOlderCalls(deps, { accountId: auth.accountId, ...body }),
  }),
  defineRoute({
    operationId: 'getCallOlder',
    method: 'GET',
    path: '/v1/get-call/{call_id}',
    summary: 'Get a call (older shape)',
    tag: TAG,
    params: CallIdParams,
    response: OlderFullCall,
    errors: [404],
    handler: ({ deps, auth }, { params }) =>
      getOlderCall(deps, { accountId: auth.accountId, callId: params.call_id }),
  }),
  defineRoute({
    operationId: 'updateCall',
    method: 'PATCH',
    path: '/v1/update-call/{call_id}',
    summary: "Replace a call's metadata (a JSON object of at most 50 KB)",
    tag: TAG,
    params: CallIdParams,
    body: UpdateCallInput,
    response: OlderFullCall,
    errors: [400, 404],
    handler: ({ deps, auth }, { params, body }) =>
      updateCallMetadata(deps, {
        accountId: auth.accountId,
        callId: params.call_id,
        metadata: body.metadata,
      }),
  }),
];
