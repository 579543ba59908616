#!/usr/bin/env node
// Lists exports that no other file imports. Biome has no project-wide rule for this, and the usual
// tools (knip, ts-prune) bring native resolver binaries or are unmaintained; the TypeScript program
// the type-check already builds answers it exactly: every import and re-export specifier is resolved
// to the declaration it names (through `export *` chains), and an export no other file reaches is dead.
// Usage: node scripts/unused-exports.mjs [--help]   (exit 1 when any is found)
import path from 'node:path';
import ts from 'typescript';

if (process.argv.includes('--help')) {
  console.log('Usage: node scripts/unused-exports.mjs\nLists exported declarations that no other file imports; exit 1 when any is found.');
  process.exit(0);
}

const root = path.resolve(import.meta.dirname, '..');
const configPath = path.join(root, 'tsconfig.json');
const parsed = ts.getParsedCommandLineOfConfigFile(
  configPath,
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  },
);
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
const checker = program.getTypeChecker();
const ours = program.getSourceFiles().filter((f) => !f.isDeclarationFile && !f.fileName.includes('/node_modules/'));

/** Declarations reached from a file other than their own. */
const reached = new Set();
const original = (symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
const markFrom = (file, node) => {
  const symbol = checker.getSymbolAtLocation(node);
  if (!symbol) return;
  for (const declaration of original(symbol).declarations ?? []) {
    if (declaration.getSourceFile() !== file) reached.add(declaration);
  }
};

for (const file of ours) {
  const visit = (node) => {
    if (ts.isImportSpecifier(node) || ts.isExportSpecifier(node)) markFrom(file, node.name);
    else if (ts.isImportClause(node) && node.name) markFrom(file, node.name);
    else if (ts.isPropertyAccessExpression(node) || ts.isQualifiedName(node)) {
      // `ns.member` on an `import * as ns` namespace, and `import('x').Type` style references.
      const left = ts.isPropertyAccessExpression(node) ? node.expression : node.left;
      const leftSymbol = checker.getSymbolAtLocation(left);
      if (leftSymbol && leftSymbol.flags & ts.SymbolFlags.Alias)
        markFrom(file, ts.isPropertyAccessExpression(node) ? node.name : node.right);
    } else if (ts.isImportTypeNode(node) && node.qualifier)
      markFrom(file, ts.isIdentifier(node.qualifier) ? node.qualifier : node.qualifier.right);
    ts.forEachChild(node, visit);
  };
  visit(file);
}

const unused = [];
for (const file of ours) {
  const moduleSymbol = checker.getSymbolAtLocation(file);
  if (!moduleSymbol) continue;
  for (const exported of checker.getExportsOfModule(moduleSymbol)) {
    if (exported.flags & ts.SymbolFlags.Alias) continue; // a re-export: judged where it is declared
    // Types stay exportable: they document the signatures of the values a module exports.
    if (!(exported.flags & ts.SymbolFlags.Value)) continue;
    const own = (exported.declarations ?? []).filter((d) => d.getSourceFile() === file);
    if (own.length === 0 || own.some((d) => reached.has(d))) continue;
    const { line } = file.getLineAndCharacterOfPosition(own[0].getStart());
    unused.push(`${path.relative(root, file.fileName)}:${line + 1}  ${exported.name}`);
  }
}

if (unused.length > 0) {
  console.log(`Exported but imported by no other file (${unused.length}); remove the export or the code:`);
  for (const line of unused.sort()) console.log(`  ${line}`);
  process.exit(1);
}
console.log('unused exports: none');
