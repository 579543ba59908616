/*
 * The semantic-convention attribute names the platform sets (semantic-conventions 1.3x, stable HTTP
 * and database names), spelled out here so that code making spans does not load that package's large
 * module when tracing is off.
 */
export const ATTR = {
  httpMethod: 'http.request.method',
  httpRoute: 'http.route',
  httpStatus: 'http.response.status_code',
  urlPath: 'url.path',
  urlScheme: 'url.scheme',
  urlFull: 'url.full',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  clientAddress: 'client.address',
  errorType: 'error.type',
  dbSystem: 'db.system.name',
  dbNamespace: 'db.namespace',
  dbOperation: 'db.operation.name',
  dbQueryText: 'db.query.text',
  /** Not a convention: the platform's X-Request-Id, to find a trace from a log line or a client's report. */
  requestId: 'acs.request.id',
} as const;
