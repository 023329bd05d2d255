#!/usr/bin/env node
// `npm start` builds only when a source file is newer than the last build, so a restart is instant.
'use strict';
const { execSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const stamp = path.join(root, 'dist', '.build-stamp');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

const sources = Math.max(
  newestMtime(path.join(root, 'apps')),
  newestMtime(path.join(root, 'libs')),
  ...['tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'package-lock.json'].map(
    (f) => fs.statSync(path.join(root, f)).mtimeMs,
  ),
);
const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
if (sources > built) {
  process.stderr.write('building...\n');
  execSync('npx nest build', { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  fs.writeFileSync(stamp, new Date().toISOString());
}
