/**
 * A request a new key can make at once, for the curl line shown with its secret: the first of its
 * scopes (in this order) that opens an endpoint without anything else to fetch first. The gateway's
 * route table is the judge; these pairs are the same (read:devices and write:devices open GET
 * /api/Dac; auth:login opens POST /api/Users/Login; register:device needs a user's token;
 * auth:register opens POST /api/Users/Register).
 */
export interface ExampleCall {
  scope: string;
  /** What the call does, for the sentence above it. */
  what: string;
  method: 'GET' | 'POST';
  path: string;
  /** A JSON body with placeholders the user fills in; absent for a GET. */
  body?: string;
  /** The user's token goes in an Authorization header (placeholder). */
  needsUserToken?: boolean;
}

const CALLS: readonly ExampleCall[] = [
  { scope: 'read:devices', what: 'reads the first page of the catalog', method: 'GET', path: '/api/Dac?pageSize=5' },
  { scope: 'write:devices', what: 'reads the first page of the catalog', method: 'GET', path: '/api/Dac?pageSize=5' },
  {
    scope: 'auth:login',
    what: 'signs a user in (put in their e-mail and password)',
    method: 'POST',
    path: '/api/Users/Login',
    body: '{"email":"<e-mail>","password":"<password>"}',
  },
  {
    scope: 'register:device',
    what: "registers a device to a signed-in user (put in the user's token from a login)",
    method: 'POST',
    path: '/api/Devices/Register',
    body: '{"serialNumber":"<serial>","name":"<name>"}',
    needsUserToken: true,
  },
  {
    scope: 'auth:register',
    what: 'creates a user account (put in their details)',
    method: 'POST',
    path: '/api/Users/Register',
    body: '{"email":"<e-mail>","password":"<password>","firstName":"<first name>","lastName":"<last name>"}',
  },
];

/** null: the key has no scope that opens an endpoint (it can call nothing yet). */
export function exampleCallFor(scopes: string): ExampleCall | null {
  const held = new Set(scopes.split(' ').filter((s) => s.length > 0));
  return CALLS.find((call) => held.has(call.scope)) ?? null;
}

/** Single quotes in a shell line; our keys and secrets are base64url, so this is belt and braces. */
const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

/** The curl command for `call` with the key's two headers, one option per line. */
export function curlLine(call: ExampleCall, baseUrl: string, key: string, secret: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  const lines = [`curl -H ${shellQuote(`X-Api-Key: ${key}`)}`, `     -H ${shellQuote(`X-Api-Secret: ${secret}`)}`];
  if (call.needsUserToken) lines.push(`     -H ${shellQuote('Authorization: Bearer <token>')}`);
  if (call.body) lines.push(`     -H ${shellQuote('Content-Type: application/json')}`, `     -d ${shellQuote(call.body)}`);
  lines.push(`     ${shellQuote(base + call.path)}`);
  return lines.join(' \\\n');
}
