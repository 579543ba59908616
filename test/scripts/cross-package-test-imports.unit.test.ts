import { describe, expect, it } from '@jest/globals';
// @ts-expect-error: a plain ES module script without types (scripts/ is not TypeScript).
import { crossPackageTestImports, packageOf } from '../../scripts/cross-package-test-imports.mjs';

const WORKSPACES = ['libs/testing', 'services/billing', 'services/identity', 'services/dashboard', 'test/support'];

const problemsOf = (file: string, text: string): string[] => crossPackageTestImports([{ file, text }], WORKSPACES);

describe('the lint check on test imports', () => {
  it("refuses a test that imports another package's test/ folder, statically, dynamically or re-exported", () => {
    const harness = '../../identity/test/harness.js';
    expect(problemsOf('services/billing/test/a.test.ts', `import { startIdentity } from '${harness}';`)).toHaveLength(1);
    expect(problemsOf('services/billing/test/a.test.ts', "const h = await import('../../identity/test/harness.js');")).toHaveLength(1);
    expect(problemsOf('services/dashboard/test/harness.ts', "export * from '../../../test/e2e/actors.js';")).toEqual([
      'services/dashboard/test/harness.ts imports ../../../test/e2e/actors.js, in the test/ folder of the root package: import a package instead',
    ]);
  });

  it("lets a test import its own package's test/ folder and its sources, and packages by name", () => {
    expect(problemsOf('services/identity/test/login.test.ts', "import { startIdentity } from './harness.js';")).toEqual([]);
    expect(problemsOf('services/identity/test/login.test.ts', "import { INVALID } from '../src/domain/login.js';")).toEqual([]);
    expect(problemsOf('services/billing/test/a.test.ts', "import { startIdentity } from '@acs/test-support';")).toEqual([]);
    expect(problemsOf('test/e2e/x.e2e.test.ts', "import { appKey } from './actors.js';")).toEqual([]);
  });

  it('counts test/support as a package of its own, not as the root package', () => {
    expect(packageOf('test/support/src/index.ts', WORKSPACES)).toBe('test/support');
    expect(packageOf('test/e2e/actors.ts', WORKSPACES)).toBe('');
    expect(problemsOf('test/support/src/x.ts', "import { x } from '../../e2e/helpers.js';")).toHaveLength(1);
  });
});
