import { z } from 'zod';
import { GetPhoneNumberInput, PhoneNumberView, getPhoneNumber, listPhoneNumbers } from '@voice/core';
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
];
