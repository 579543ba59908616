// identity's tests import their harness from here; it lives in @acs/test-support because billing's
// cross-service tests start identity with it too (no test imports another package's test/ folder).
export * from '@acs/test-support';
