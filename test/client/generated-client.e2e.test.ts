import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import type { Middleware } from 'openapi-fetch';
import ts from 'typescript';
import { setUserRole } from '@acs/identity-service';
import type { SystemUnderTest } from '../e2e/system-harness.js';
import { PASSWORD, appKey, newUser } from '../e2e/actors.js';
import { ResponseChecker } from '../fuzz/response-checker.js';
import { fetchServedDocument, operationsOf, type OpenApiDocument } from '../fuzz/served-document.js';
import { startSystemWithBroker } from '../fuzz/system-with-broker.js';

// The served document must be usable by a generated client (docs/architecture.md, decision 10): types
// from openapi-typescript, a journey over every operation written with openapi-fetch against them,
// type-checked by tsc and run against the real system, every answer checked by ajv against the
// schema the document declares for its status.

const here = dirname(fileURLToPath(import.meta.url));
const GENERATED = join(here, 'generated', 'openapi.d.ts');
const JOURNEY = join(here, 'journey', 'journey.ts');

let sut: SystemUnderTest;
let doc: OpenApiDocument;

beforeAll(async () => {
  sut = await startSystemWithBroker();
  doc = await fetchServedDocument(sut.url);
  const nodes = await openapiTS(doc as unknown as Parameters<typeof openapiTS>[0]);
  await writeFile(GENERATED, astToString(nodes));
}, 120_000);
afterAll(async () => sut?.stop());

/** tsc's verdict on the journey, with the project's strictness, against the generated types. */
function typeErrors(): string[] {
  const program = ts.createProgram([JOURNEY], {
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: false,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? `${d.file.fileName.replace(here, '')}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
}

describe('a client generated from the served /openapi.json', () => {
  it('type-checks a journey over every operation (openapi-typescript + openapi-fetch, tsc)', () => {
    expect(typeErrors()).toEqual([]);
  }, 120_000);

  it('runs that journey against the real system; every answer has a declared status and matches its schema', async () => {
    const checker = new ResponseChecker(doc);
    const operations = operationsOf(doc);
    const called = new Set<string>();
    const problems: string[] = [];
    const middleware: Middleware = {
      async onResponse({ request, response, schemaPath }) {
        const op = operations.find((o) => o.method === request.method && o.path === schemaPath);
        if (!op) {
          problems.push(`${request.method} ${schemaPath}: not an operation of the document`);
          return undefined;
        }
        called.add(op.id);
        const text = await response.clone().text();
        const headers = Object.fromEntries(response.headers.entries());
        for (const problem of checker.problems(op, { status: response.status, headers, text })) problems.push(`${op.id}: ${problem}`);
        return undefined;
      },
    };
    const app = await appKey(sut, ['auth:register', 'auth:login']);
    const admin = await newUser(sut, app);
    await setUserRole(sut.system.identity.deps, admin.email, 2);
    // A module path in a variable: the root type-check must not follow it into the journey, whose
    // types exist only once this test has generated them (the journey is type-checked above).
    const journeyModule = './journey/journey.js';
    const { runJourney } = (await import(journeyModule)) as { runJourney: (input: Record<string, unknown>) => Promise<void> };
    await runJourney({
      baseUrl: sut.url,
      app,
      dashboard: await appKey(sut, ['system:full-access']),
      importer: await appKey(sut, ['write:devices']),
      firmware: await appKey(sut, ['register:device']),
      admin: { email: admin.email, password: PASSWORD },
      user: { email: `journey-${Date.now().toString(36)}@example.com`, password: PASSWORD },
      middleware,
    });
    expect(problems).toEqual([]);
    expect([...called].sort()).toEqual(operations.map((o) => o.id).sort());
  }, 120_000);
});
