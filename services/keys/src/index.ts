// What the embedded launcher and the tests use; the standalone entry is main.ts.
export { keysConfigSchema, type KeysConfig } from './config.js';
export { startKeysService, openKeysDeps, KEYS_MIGRATIONS_DIR, type KeysService } from './service.js';
export type { KeysDeps } from './domain/deps.js';
export { createApiKey } from './domain/create-key.js';
export { changeApiKey, ensureSystemKey, revokeApiKey, rollKey } from './domain/operator-keys.js';
