#!/usr/bin/env node
// Builds clients/typescript into an installable package (clients/typescript/README.md): an ES module build
// (dist/esm) and a CommonJS one (dist/cjs), each with its type declarations and a package.json naming its
// module kind, which the package's exports map points `import` and `require` at. Its one run-time
// dependency, openapi-fetch (and the helper types it uses), is bundled (bundleDependencies): copied from
// the repository's node_modules into clients/typescript/node_modules, so `npm pack` puts it in the tarball
// and the package installs with no registry. `npm pack` in clients/typescript runs this first (prepack).
'use strict';
const { execFileSync } = require('node:child_process');
const { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const root = join(__dirname, '..');
const client = join(root, 'clients', 'typescript');
const dist = join(client, 'dist');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

const BUILDS = [
  { dir: 'esm', type: 'module', options: { module: 'es2022', moduleResolution: 'bundler' } },
  { dir: 'cjs', type: 'commonjs', options: { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true } },
];
const COMMON = {
  target: 'es2022',
  lib: ['es2023', 'dom'],
  types: [],
  declaration: true,
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
};

rmSync(dist, { recursive: true, force: true });
const configs = mkdtempSync(join(tmpdir(), 'client-build-'));
for (const build of BUILDS) {
  const out = join(dist, build.dir);
  const config = join(configs, `tsconfig.${build.dir}.json`);
  writeFileSync(config, JSON.stringify({ compilerOptions: { ...COMMON, ...build.options, outDir: out }, files: [join(client, 'index.ts')] }));
  execFileSync(process.execPath, [tsc, '-p', config], { cwd: client, stdio: ['ignore', 'inherit', 'inherit'] });
  // tsc emits no copy of a declaration file it reads: the declarations import './schema.js'.
  cpSync(join(client, 'schema.d.ts'), join(out, 'schema.d.ts'));
  writeFileSync(join(out, 'package.json'), `${JSON.stringify({ type: build.type }, null, 2)}\n`);
}
rmSync(configs, { recursive: true, force: true });

/** The files of an installed package a bundle needs: its manifest, licence and built code. */
function bundle(name) {
  const from = join(root, 'node_modules', name);
  const to = join(client, 'node_modules', name);
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  for (const file of ['package.json', 'LICENSE', 'dist']) cpSync(join(from, file), join(to, file), { recursive: true });
  return JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'));
}

const manifest = JSON.parse(readFileSync(join(client, 'package.json'), 'utf8'));
for (const name of manifest.bundleDependencies) {
  const bundled = bundle(name);
  if (bundled.version !== manifest.dependencies[name]) {
    process.stderr.write(`clients/typescript/package.json pins ${name} ${manifest.dependencies[name]}, node_modules has ${bundled.version}\n`);
    process.exit(1);
  }
  for (const dependency of Object.keys(bundled.dependencies ?? {})) bundle(dependency);
}
process.stderr.write(`built ${manifest.name} ${manifest.version} in clients/typescript/dist (esm, cjs)\n`);
