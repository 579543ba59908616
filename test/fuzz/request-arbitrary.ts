import fc from 'fast-check';
import type { OutgoingRequest } from './http-exchange.js';
import { HOSTILE_STRINGS, edgeValue, mutatedValue, validValue, type JsonSchema } from './schema-arbitrary.js';
import type { Operation } from './served-document.js';

/** Who the fuzz suite can be: a key with every scope and an Admin user, and parties that should be refused. */
export interface Parties {
  /** system:full-access: passes layer 1 and every scope check. */
  fullAccess: { key: string; secret: string };
  /** read:devices only. */
  narrow: { key: string; secret: string };
  /** An Admin (role 2): passes every user requirement. */
  adminToken: string;
  /** A user on a trial (role 1): refused by the import. */
  userToken: string;
  /** Ids the system has answered with (keys, subscriptions), so path parameters sometimes name real rows. */
  knownIds: () => string[];
}

/** Every byte outside the unreserved set, percent-encoded (a lone surrogate becomes U+FFFD, as UTF-8 would make it). */
const percentEncode = (value: string): string =>
  [...Buffer.from(value, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/** node:http refuses to send control characters in header values; those cases go through rawExchange instead. */
const headerSafe = (value: string): string => value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');

/** `arbitrary` in `percent` of the runs, null otherwise (fc.option's freq counts the other way round). */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>, percent: number): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: percent, arbitrary }, { weight: 100 - percent, arbitrary: fc.constant(null) });

const asText = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

function credentials(parties: Parties): fc.Arbitrary<Record<string, string>> {
  const { fullAccess, narrow, adminToken, userToken } = parties;
  const keyHeaders = (k: { key: string; secret: string }) => ({ 'x-api-key': k.key, 'x-api-secret': k.secret });
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant({ ...keyHeaders(fullAccess), authorization: `Bearer ${adminToken}` }) },
    { weight: 1, arbitrary: fc.constant({ ...keyHeaders(fullAccess), authorization: `Bearer ${userToken}` }) },
    { weight: 1, arbitrary: fc.constant(keyHeaders(fullAccess)) },
    { weight: 1, arbitrary: fc.constant({ ...keyHeaders(narrow), authorization: `Bearer ${adminToken}` }) },
    {
      weight: 1,
      arbitrary: fc.constant({
        'x-api-key': fullAccess.key,
        'x-api-secret': `${fullAccess.secret}x`,
        authorization: `Bearer ${adminToken}`,
      }),
    },
    { weight: 1, arbitrary: fc.constant({ authorization: `Bearer ${adminToken}` }) },
    {
      weight: 1,
      arbitrary: fc.string({ maxLength: 300 }).map((junk) => ({ ...keyHeaders(fullAccess), authorization: headerSafe(`Bearer ${junk}`) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.string({ maxLength: 80 }), fc.string({ maxLength: 80 }))
        .map(([key, secret]) => ({ 'x-api-key': headerSafe(key), 'x-api-secret': headerSafe(secret) })),
    },
  );
}

/** A uuid no row has, when no real id is known yet. */
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

function pathValue(parameter: { schema: JsonSchema }, parties: Parties): fc.Arbitrary<string> {
  // Read per run, not once: ids appear as the run creates rows.
  const known = fc.nat().map((i) => {
    const ids = parties.knownIds();
    return ids.length > 0 ? ids[i % ids.length]! : UNKNOWN_ID;
  });
  return fc.oneof(
    { weight: 4, arbitrary: known },
    { weight: 2, arbitrary: validValue(parameter.schema).map(asText) },
    { weight: 2, arbitrary: edgeValue(parameter.schema).map(asText) },
  );
}

function queryString(op: Operation): fc.Arbitrary<string> {
  const declared = op.query.map((p) =>
    sometimes(
      fc.oneof(validValue(p.schema), edgeValue(p.schema)).map((v) => `${p.name}=${percentEncode(asText(v))}`),
      50,
    ),
  );
  const unknown = sometimes(
    fc
      .tuple(
        fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.constantFrom('PAGE', 'pagesize', 'sort', '__proto__')),
        fc.string({ maxLength: 12 }),
      )
      .map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`),
    10,
  );
  const repeated =
    op.query.length > 0
      ? sometimes(
          fc.constantFrom(...op.query.map((p) => p.name)).map((name) => `${name}=1&${name}=2`),
          10,
        )
      : fc.constant(null);
  return fc.tuple(fc.tuple(...declared), unknown, repeated).map(([values, extra, twice]) => {
    const parts = [...values, extra, twice].filter((p): p is string => p !== null);
    return parts.length > 0 ? `?${parts.join('&')}` : '';
  });
}

/** Texts that are not the JSON a schema describes, or not JSON at all. */
const BROKEN_JSON = [
  '{',
  '{"a":',
  'nul',
  '[1,]',
  '1e999',
  '\ufeff{}',
  '{"a":1,"a":2}',
  '['.repeat(50_000),
  'null',
  '0',
  '""',
  '{}',
  '[]',
  '\u0000',
  'true',
];
const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  ';;;',
  'application/xml',
];

interface BodyCase {
  body: Buffer | undefined;
  contentType: string | null;
  chunkBytes: number | undefined;
}

function bodyCase(op: Operation): fc.Arbitrary<BodyCase> {
  const schema = op.body;
  const payload = fc.oneof(
    { weight: schema ? 3 : 0, arbitrary: schema ? validValue(schema).map((v) => JSON.stringify(v)) : fc.constant('{}') },
    { weight: schema ? 5 : 0, arbitrary: schema ? mutatedValue(schema).map((v) => JSON.stringify(v) ?? 'null') : fc.constant('{}') },
    { weight: 1, arbitrary: fc.constantFrom(...BROKEN_JSON, ...HOSTILE_STRINGS) },
    { weight: schema ? 1 : 6, arbitrary: fc.constant<string | null>(null) },
  );
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant('application/json') },
    { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    { weight: 1, arbitrary: fc.constant(null) },
  );
  const chunking = fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 4096 }) });
  return fc.tuple(payload, contentType, chunking).map(([text, type, chunkBytes]) => ({
    body: text === null ? undefined : Buffer.from(text, 'utf8'),
    contentType: type,
    chunkBytes: text === null ? undefined : chunkBytes,
  }));
}

/** Headers beyond authentication: the operation's own (valid or not), odd request ids, now and then one far too large. */
function extraHeaders(op: Operation): fc.Arbitrary<Record<string, string>> {
  const own = op.headers.map((h) =>
    sometimes(
      fc.oneof(validValue(h.schema), edgeValue(h.schema)).map((v) => [h.name, headerSafe(asText(v))] as const),
      50,
    ),
  );
  const requestId = sometimes(
    fc.oneof(fc.string({ maxLength: 200 }), fc.constant('fuzz-id.1:2_3')).map((v) => ['x-request-id', headerSafe(v)] as const),
    20,
  );
  const huge = sometimes(
    fc.constantFrom(['x-padding', 'p'.repeat(17 * 1024)] as const, ['cookie', `c=${'c'.repeat(20 * 1024)}`] as const),
    3,
  );
  return fc
    .tuple(fc.tuple(...own), requestId, huge)
    .map(([values, id, big]) => Object.fromEntries([...values, id, big].filter((e): e is readonly [string, string] => e !== null)));
}

/** A request to `op`: valid and invalid parties, path, query, headers and body, by the operation's declared shapes. */
export function requestArbitrary(op: Operation, parties: Parties): fc.Arbitrary<OutgoingRequest> {
  const pathValues = fc.tuple(...op.pathParameters.map((p) => pathValue(p, parties)));
  return fc
    .tuple(credentials(parties), pathValues, queryString(op), extraHeaders(op), bodyCase(op))
    .map(([auth, values, query, headers, body]) => {
      let path = op.path;
      for (const [i, p] of op.pathParameters.entries()) path = path.replace(`{${p.name}}`, percentEncode(values[i]!));
      const all: Record<string, string> = { ...auth, ...headers };
      if (body.contentType !== null && body.body) all['content-type'] = body.contentType;
      return {
        method: op.method,
        path: path + query,
        headers: all,
        ...(body.body ? { body: body.body } : {}),
        ...(body.chunkBytes ? { chunkBytes: body.chunkBytes } : {}),
      };
    });
}
