import { AppError } from '@voice/core';
import { describe, expect, it } from 'vitest';
import { toErrorResponse } from './errors';

describe('error mapping', () => {
  it("uses the spec's two body shapes", () => {
    const error = new AppError('AGENT_NOT_FOUND', 'Agent not found');
    expect(toErrorResponse(error, 'error', 'r1')).toEqual({
      status: 404,
      body: { error: 'Agent not found' },
      headers: {},
    });
    expect(toErrorResponse(error, 'status-message', 'r1')).toEqual({
      status: 404,
      body: { status: 'error', message: 'Agent not found' },
      headers: {},
    });
    expect(toErrorResponse(new AppError('UNPROCESSABLE', 'flow agents'), 'status-message', 'r1').status).toBe(
      422,
    );
  });

  it('answers 401 and 500 in the {error} shape whatever the endpoint', () => {
    expect(toErrorResponse(new AppError('UNAUTHORIZED', 'Unauthorized'), 'status-message', 'r2')).toEqual({
      status: 401,
      body: { error: 'Unauthorized' },
      headers: { 'www-authenticate': 'Bearer' },
    });
    expect(toErrorResponse(new Error('boom'), 'status-message', 'r3')).toEqual({
      status: 500,
      body: { error: 'Internal server error', request_id: 'r3' },
      headers: {},
    });
  });
});
