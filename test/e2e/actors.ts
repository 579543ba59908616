// The parties of an end-to-end test live in @acs/test-support, which the dashboard's tests import too.
export { PASSWORD, appKey, bearer, json, newUser, type Auth, type User } from '@acs/test-support';
