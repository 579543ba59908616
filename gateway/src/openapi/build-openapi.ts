import { z } from 'zod';
import { SPEC_ERRORS } from '@acs/errors';
import type { RouteSpec } from '../routing/route-table.js';
import { OPERATIONS, type HeaderDoc } from './operations.js';

const errorSchema = {
  type: 'object',
  required: ['error', 'message'],
  properties: {
    error: { type: 'string', description: 'short title' },
    message: { type: 'string', description: 'explanation' },
    requestId: { type: 'string', description: 'the X-Request-Id of the request' },
    details: { type: 'array', description: 'validation problems', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
  },
};

const errorResponse = (description: string, example?: { error: string; message: string }) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, ...(example ? { example: { error: example.error, message: example.message } } : {}) } },
});

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

function responseHeaders(headers: Record<string, HeaderDoc>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).map(([name, header]) => [name, { description: header.description, schema: header.schema }]));
}

function operation(route: RouteSpec): Record<string, unknown> {
  const doc = OPERATIONS[route.operationId];
  if (!doc) throw new Error(`route ${route.method} ${route.path} has no OpenAPI description (${route.operationId})`);
  const needsUser = route.user.kind === 'user';
  const responses: Record<string, unknown> = {
    [doc.success.status]: {
      description: doc.success.description,
      ...(doc.success.headers ? { headers: responseHeaders(doc.success.headers) } : {}),
      ...(doc.success.schema ? { content: { 'application/json': { schema: jsonSchema(doc.success.schema) } } } : {}),
    },
    401: errorResponse('API key or secret missing or invalid', SPEC_ERRORS.missingApiKey),
    403: errorResponse(needsUser ? 'Scope missing, or user JWT missing, invalid or with too low a role' : 'The key lacks the required scope', SPEC_ERRORS.insufficientScope),
    404: errorResponse('Unknown route'),
    405: errorResponse('Method not supported on this path'),
    413: errorResponse('Request body too large'),
    502: errorResponse('The owning service failed'),
    503: errorResponse('The owning service is unreachable or not deployed'),
    504: errorResponse('The owning service did not answer in time'),
  };
  for (const [status, other] of Object.entries(doc.otherResponses ?? {})) {
    responses[status] = { description: other.description, ...(other.headers ? { headers: responseHeaders(other.headers) } : {}) };
  }
  for (const [status, description] of Object.entries(doc.errors ?? {})) responses[status] = errorResponse(description);
  return {
    operationId: route.operationId,
    summary: doc.summary,
    description: doc.description,
    'x-required-scope': route.scope,
    'x-user-requirement': route.user.kind === 'user' ? { minRole: route.user.minRole } : 'none',
    security: [needsUser ? { ApiKey: [], ApiSecret: [], UserJwt: [] } : { ApiKey: [], ApiSecret: [] }],
    ...(doc.query || doc.requestHeaders
      ? { parameters: [...(doc.query ?? []).map((q) => ({ in: 'query', required: false, ...q })), ...(doc.requestHeaders ?? []).map((h) => ({ in: 'header', required: false, ...h }))] }
      : {}),
    ...(doc.requestBody ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(doc.requestBody) } } } } : {}),
    responses,
  };
}

/** OpenAPI 3.1 of the public API, generated from the route table and the zod schemas. */
export function buildOpenApiDocument(routes: readonly RouteSpec[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Audio Catalog and Account Service',
      version: '1.0.0',
      description:
        'Every /api request needs X-Api-Key and X-Api-Secret (layer 1); routes that involve user data also need Authorization: Bearer <JWT> (layer 2). ' +
        'Each route names the scope it needs in x-required-scope. system:full-access is held only by the service\'s own web application and cannot be assigned through the API. ' +
        'Every error body has `error` and `message` (plus `requestId`, and `details` for validation errors). Every response carries X-Request-Id (taken from the request when it is plain, else generated).',
    },
    paths,
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        ApiSecret: { type: 'apiKey', in: 'header', name: 'X-Api-Secret' },
        UserJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
    },
  };
}
