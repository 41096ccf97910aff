import { z } from 'zod';
import {
  AddPhoneNumberInput,
  AssignPhoneNumberFields,
  GetPhoneNumberInput,
  PhoneNumberView,
  ReleasePhoneNumberInput,
  ReleasePhoneNumberResult,
  addPhoneNumber,
  assignPhoneNumber,
  getPhoneNumber,
  listPhoneNumbers,
  releasePhoneNumber,
} from '@voice/core';
import { defineRoute } from './route';

export const phoneNumberRoutes = [
  defineRoute({
    operationId: 'listPhoneNumbers',
    method: 'GET',
    path: '/v1/list-phone-numbers',
    summary: "List the account's phone numbers",
    tag: 'Phone numbers',
    response: z.array(PhoneNumberView),
    handler: ({ deps, auth }) => listPhoneNumbers(deps, { accountId: auth.accountId }),
  }),
  defineRoute({
    operationId: 'getPhoneNumber',
    method: 'GET',
    path: '/v1/get-phone-number/{phone_number}',
    summary: 'Get a phone number by its E.164 form (URL-encoded: %2B for the plus)',
    tag: 'Phone numbers',
    params: GetPhoneNumberInput,
    response: PhoneNumberView,
    errors: [404],
    handler: ({ deps, auth }, { params }) => getPhoneNumber(deps, { accountId: auth.accountId, ...params }),
  }),
  // The phone-number management API (an extension; the spec lists it as planned): docs/telephony.md.
  defineRoute({
    operationId: 'addPhoneNumber',
    method: 'POST',
    path: '/functions/v1/phone-number-add',
    summary:
      'Add a carrier number to the account (with carrier_connection_id, checked with that Twilio account and its calls routed here)',
    tag: 'Phone numbers',
    body: AddPhoneNumberInput,
    response: PhoneNumberView,
    successStatus: 201,
    errors: [400, 404, 409, 422, 502],
    handler: ({ deps, auth }, { body }) => addPhoneNumber(deps, { accountId: auth.accountId, ...body }),
  }),
  defineRoute({
    operationId: 'assignPhoneNumber',
    method: 'PATCH',
    path: '/functions/v1/phone-number-assign/{phone_number}',
    summary: 'Assign an agent to a number (it answers and dials from it), or unassign it with agent_id null',
    tag: 'Phone numbers',
    params: GetPhoneNumberInput,
    body: AssignPhoneNumberFields,
    response: PhoneNumberView,
    errors: [400, 404, 422, 502],
    handler: ({ deps, auth }, { params, body }) =>
      assignPhoneNumber(deps, { accountId: auth.accountId, ...params, ...body }),
  }),
  defineRoute({
    operationId: 'releasePhoneNumber',
    method: 'DELETE',
    path: '/functions/v1/phone-number-release/{phone_number}',
    summary:
      'Release a number from the account (refused while a call through it is in progress or a campaign that has not ended dials from it)',
    tag: 'Phone numbers',
    params: ReleasePhoneNumberInput,
    response: ReleasePhoneNumberResult,
    errors: [404, 409],
    handler: ({ deps, auth }, { params }) =>
      releasePhoneNumber(deps, { accountId: auth.accountId, ...params }),
  }),
];
