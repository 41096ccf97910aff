import { z } from 'zod';
import type { AnyRestRoute } from './rest/route';

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

function parametersOf(schema: z.ZodType | undefined, location: 'path' | 'query') {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input') as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || (object.required ?? []).includes(name),
    schema: property,
  }));
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: the message names the field and the rule',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Request body over 1 MB',
  422: 'Unprocessable',
};

const errorRef = (shape: 'error' | 'status-message') =>
  shape === 'status-message' ? '#/components/schemas/StatusError' : '#/components/schemas/Error';

/** The OpenAPI 3.1 document of the REST surface, built from the same table and zod schemas that serve it. */
export function buildOpenApiDocument(routes: readonly AnyRestRoute[], { publicUrl }: { publicUrl?: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const responses: Record<string, unknown> = {
      [route.successStatus ?? 200]: {
        description: 'Success',
        content: { [route.produces ?? 'application/json']: { schema: jsonSchema(route.response, 'output') } },
      },
      401: { $ref: '#/components/responses/Unauthorized' },
      429: { $ref: '#/components/responses/RateLimited' },
      500: { $ref: '#/components/responses/InternalError' },
    };
    for (const status of route.errors ?? []) {
      responses[status] = {
        description: ERROR_DESCRIPTIONS[status] ?? 'Error',
        content: { 'application/json': { schema: { $ref: errorRef(route.errorShape ?? 'error') } } },
      };
    }
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      parameters: [...parametersOf(route.params, 'path'), ...parametersOf(route.query, 'query')],
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: jsonSchema(route.body, 'input') } },
            },
          }
        : {}),
      responses,
    };
  }
  const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Voice Agent Calling API',
      version: '1.0.0',
      description:
        'Current operations live under /functions/v1, older ones under /v1. tRPC procedures are served at /trpc.',
    },
    // Without a configured public URL, the document's own origin.
    servers: [{ url: publicUrl ?? '/' }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (vk_live_...) or a dashboard JWT',
        },
      },
      schemas: {
        Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
        StatusError: {
          type: 'object',
          required: ['status', 'message'],
          properties: { status: { type: 'string', const: 'error' }, message: { type: 'string' } },
        },
        InternalError: {
          type: 'object',
          required: ['error', 'request_id'],
          properties: { error: { type: 'string' }, request_id: { type: 'string' } },
        },
      },
      responses: {
        Unauthorized: { description: 'Missing or invalid credentials', content: errorContent },
        RateLimited: { description: 'Too many requests; see Retry-After', content: errorContent },
        InternalError: {
          description: 'Unexpected fault; quote the request_id',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/InternalError' } } },
        },
      },
    },
  };
}
