import type { RouteSpec } from '../routing/route-table.js';
import {
  ENDPOINTS,
  IDEMPOTENCY_KEY_DESCRIPTION,
  IDEMPOTENCY_KEY_HEADER,
  idempotencyKeySchema,
  isIdempotentWriteMethod,
  type Endpoint,
  type SuccessDoc,
} from '@acs/contracts';
import { jsonSchema } from './json-schema.js';
import { leakReportPath } from './leak-report-doc.js';
import { ERROR_SCHEMA, RESPONSE_HEADERS, errorResponses, successHeaders } from './responses.js';

/** The contract of each operation (libs/contracts/src/endpoints), by operationId: shapes, statuses and text. */
const CONTRACTS = new Map<string, Endpoint>(ENDPOINTS.map((endpoint) => [endpoint.operationId, endpoint]));

/** The `{name}` segments of a route's path, in order. */
const pathParameterNames = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

function successResponse(success: SuccessDoc, idempotent: boolean): Record<string, unknown> {
  return {
    description: success.description,
    headers: successHeaders(success.headers, idempotent),
    ...(success.schema
      ? {
          content: {
            'application/json': { schema: jsonSchema(success.schema) },
            ...(success.csv ? { 'text/csv': { schema: { type: 'string', description: success.csv } } } : {}),
          },
        }
      : {}),
  };
}

/** Path parameters (every `{name}` of the path must be described), then query, then header parameters. */
function parameters(route: RouteSpec, doc: Endpoint): Record<string, unknown>[] {
  const path = pathParameterNames(route.path).map((name) => {
    const described = doc.pathParameters?.[name];
    if (!described) throw new Error(`route ${route.method} ${route.path} does not describe its path parameter {${name}}`);
    return { in: 'path', name, required: true, ...described };
  });
  const query = (doc.query?.parameters ?? []).map((q) => ({ in: 'query', required: false, ...q }));
  // The gateway's Idempotency-Key, declared here once for every POST and PATCH (issue 31).
  const declared = isIdempotentWriteMethod(route.method)
    ? [...(doc.headers ?? []), { name: IDEMPOTENCY_KEY_HEADER, description: IDEMPOTENCY_KEY_DESCRIPTION, schema: idempotencyKeySchema }]
    : (doc.headers ?? []);
  const headers = declared.map((h) => ({
    in: 'header',
    name: h.name,
    required: false,
    description: h.description,
    schema: jsonSchema(h.schema),
  }));
  return [...path, ...query, ...headers];
}

function operation(route: RouteSpec): Record<string, unknown> {
  const doc = CONTRACTS.get(route.operationId);
  if (!doc) throw new Error(`route ${route.method} ${route.path} has no OpenAPI description (${route.operationId})`);
  const needsUser = route.user.kind === 'user';
  const idempotent = isIdempotentWriteMethod(route.method);
  const responses: Record<string, unknown> = { [doc.success.status]: successResponse(doc.success, idempotent) };
  for (const success of doc.alsoSucceeds ?? []) responses[success.status] = successResponse(success, idempotent);
  Object.assign(responses, errorResponses(route, doc));
  const params = parameters(route, doc);
  return {
    operationId: route.operationId,
    summary: doc.summary,
    description: doc.description,
    'x-required-scope': route.scope,
    'x-user-requirement': route.user.kind === 'user' ? { minRole: route.user.minRole } : 'none',
    security: [needsUser ? { ApiKey: [], ApiSecret: [], UserJwt: [] } : { ApiKey: [], ApiSecret: [] }],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(doc.requestBody
      ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(doc.requestBody) } } } }
      : {}),
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
        "Each route names the scope it needs in x-required-scope. system:full-access is held only by the service's own web application and cannot be assigned through the API. " +
        'Every error body has `error` and `message` (plus `requestId`, and `details` for validation errors). Every response carries X-Request-Id (taken from the request when it is plain, else generated). ' +
        'Every GET operation also answers HEAD (the same checks, status and headers, no body; counted like the GET). ' +
        'A query parameter an operation does not list is refused with 400 validation_failed, never ignored.',
    },
    // Relative: the gateway that served this document (behind whatever host name the client used).
    servers: [{ url: '/', description: 'The gateway that serves this document' }],
    paths: { ...paths, ...leakReportPath() },
    components: {
      schemas: { Error: ERROR_SCHEMA },
      headers: RESPONSE_HEADERS,
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        ApiSecret: { type: 'apiKey', in: 'header', name: 'X-Api-Secret' },
        UserJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
    },
  };
}
