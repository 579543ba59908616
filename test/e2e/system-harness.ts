// The end-to-end tests' harness lives in @acs/test-support, which the dashboard's tests import too.
export { startSystemUnderTest, type HarnessOptions, type SystemUnderTest } from '@acs/test-support';
