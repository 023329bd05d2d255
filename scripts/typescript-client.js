#!/usr/bin/env node
// Generates the typed client's schema (clients/typescript/schema.d.ts) from openapi.yaml with
// openapi-typescript: `--write` rewrites it, `--check` fails when the committed one differs.
const { execFileSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const root = join(__dirname, '..');
const committed = join(root, 'clients', 'typescript', 'schema.d.ts');

/** The schema openapi-typescript generates from openapi.yaml now. */
function generate(target) {
  execFileSync(process.execPath, [join(root, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), join(root, 'openapi.yaml'), '-o', target], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return readFileSync(target, 'utf8');
}

const mode = process.argv[2];
if (mode === '--write') {
  generate(committed);
  process.stdout.write(`wrote ${committed}\n`);
} else if (mode === '--check') {
  const dir = mkdtempSync(join(tmpdir(), 'client-'));
  try {
    if (generate(join(dir, 'schema.d.ts')) !== readFileSync(committed, 'utf8')) {
      process.stderr.write('clients/typescript/schema.d.ts differs from what openapi.yaml generates: run `npm run openapi`\n');
      process.exit(1);
    }
    process.stdout.write('clients/typescript/schema.d.ts matches openapi.yaml\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  process.stderr.write('usage: typescript-client.js --write | --check\n');
  process.exit(2);
}
