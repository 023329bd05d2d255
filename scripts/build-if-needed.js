#!/usr/bin/env node
// `npm start` builds only when a source file is newer than the last build, so a restart is instant.
'use strict';
const { execSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const stamp = path.join(root, 'dist', '.build-stamp');

/** Newest modification time of the files under `dir` whose name matches `pattern`, leaving out `skip`. */
function newestMtime(dir, pattern = /\.ts$/, skip = []) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skip.includes(full)) newest = Math.max(newest, newestMtime(full, pattern, skip));
    } else if (pattern.test(entry.name)) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

/** Newest modification time of the named files of a directory. */
const newestOf = (dir, files) => files.reduce((newest, f) => Math.max(newest, fs.statSync(path.join(dir, f)).mtimeMs), 0);

const dashboard = path.join(root, 'apps', 'dashboard');
const sources = Math.max(
  newestMtime(path.join(root, 'apps'), /\.ts$/, [dashboard]),
  // The libs' run-time files too (the redemption script, the common-password list: nest-cli.json assets).
  newestMtime(path.join(root, 'libs'), /\.(ts|js|txt)$/),
  newestOf(root, ['tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'package-lock.json']),
);
const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
if (sources > built) {
  process.stderr.write('building...\n');
  execSync('npx nest build', { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  fs.writeFileSync(stamp, new Date().toISOString());
}

// The dashboard (a Vite build the API serves under /dashboard) is built the same way: when missing or
// older than its sources. The build runs offline.
const dashboardShell = path.join(dashboard, 'dist', 'index.html');
const dashboardSources = Math.max(
  newestMtime(path.join(dashboard, 'src'), /\.(ts|tsx|css)$/),
  newestOf(dashboard, ['index.html', 'vite.config.mts', 'contract-enums.mts', 'tsconfig.json']),
  // The lists the app offers are read from the contract when it is built (apps/dashboard/contract-enums.mts).
  newestOf(root, ['package-lock.json', 'openapi.yaml', 'openapi.dashboard.yaml']),
);
const dashboardBuilt = fs.existsSync(dashboardShell) ? fs.statSync(dashboardShell).mtimeMs : 0;
if (dashboardSources > dashboardBuilt) {
  process.stderr.write('building the dashboard...\n');
  execSync('npx vite build --config apps/dashboard/vite.config.mts --logLevel warn', { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
}
