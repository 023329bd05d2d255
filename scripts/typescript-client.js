#!/usr/bin/env node
// Generates the typed client's schemas with openapi-typescript: clients/typescript/schema.d.ts from
// openapi.yaml (the public API) and clients/typescript/dashboard.d.ts from openapi.dashboard.yaml
// (the dashboard-only API the web app also calls). `--write` rewrites them, `--check` fails when a
// committed one differs.
const { execFileSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const root = join(__dirname, '..');
const SCHEMAS = [
  { document: 'openapi.yaml', file: 'schema.d.ts' },
  { document: 'openapi.dashboard.yaml', file: 'dashboard.d.ts' },
];

/** The schema openapi-typescript generates from `document` now. */
function generate(document, target) {
  execFileSync(process.execPath, [join(root, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), join(root, document), '-o', target], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return readFileSync(target, 'utf8');
}

const mode = process.argv[2];
if (mode === '--write') {
  for (const { document, file } of SCHEMAS) {
    const committed = join(root, 'clients', 'typescript', file);
    generate(document, committed);
    process.stdout.write(`wrote ${committed}\n`);
  }
} else if (mode === '--check') {
  const dir = mkdtempSync(join(tmpdir(), 'client-'));
  try {
    for (const { document, file } of SCHEMAS) {
      if (generate(document, join(dir, file)) !== readFileSync(join(root, 'clients', 'typescript', file), 'utf8')) {
        process.stderr.write(`clients/typescript/${file} differs from what ${document} generates: run \`npm run openapi\`\n`);
        process.exit(1);
      }
      process.stdout.write(`clients/typescript/${file} matches ${document}\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  process.stderr.write('usage: typescript-client.js --write | --check\n');
  process.exit(2);
}
