import type { JsonSchema } from './schema-arbitrary.js';

/** The parts of the served OpenAPI document the fuzz suite and the client journey read. */
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, JsonSchema> };
}

export interface ParameterObject {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface ResponseObject {
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: JsonSchema & { $ref?: string } }>;
}

export interface OperationObject {
  operationId: string;
  parameters?: ParameterObject[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, ResponseObject>;
}

/** One operation of the document, flattened for generating requests. */
export interface Operation {
  id: string;
  method: string;
  path: string;
  pathParameters: ParameterObject[];
  query: ParameterObject[];
  headers: ParameterObject[];
  body: JsonSchema | undefined;
  responses: Record<string, ResponseObject>;
}

export function operationsOf(doc: OpenApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const parameters = op.parameters ?? [];
      return {
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        pathParameters: parameters.filter((p) => p.in === 'path'),
        query: parameters.filter((p) => p.in === 'query'),
        headers: parameters.filter((p) => p.in === 'header'),
        body: op.requestBody?.content['application/json']?.schema,
        responses: op.responses,
      };
    }),
  );
}

export async function fetchServedDocument(gatewayUrl: string): Promise<OpenApiDocument> {
  const res = await fetch(`${gatewayUrl}/openapi.json`);
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
  return (await res.json()) as OpenApiDocument;
}
