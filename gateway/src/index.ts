export { gatewayConfigSchema, type GatewayConfig } from './config.js';
export { startGateway, type Gateway } from './service.js';
export { ROUTES, SERVICES, type RouteSpec, type ServiceName } from './routing/route-table.js';
export { buildOpenApiDocument } from './openapi/build-openapi.js';
export { GatewayMetrics, type AuthRejection } from './metrics/gateway-metrics.js';
export { GatewayTracer } from './tracing/request-trace.js';
export { KeyUsageRecorder } from './auth/key-usage-recorder.js';
