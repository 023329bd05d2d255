#!/usr/bin/env node
// The registry mirror used here serves only the Linux builds of optional native packages
// (msgpackr-extract, unrs resolver bindings), so `npm install` writes a lockfile without
// entries for the other platforms and `npm ci` then refuses it as out of sync. This adds the
// missing entries, tagged with their os/cpu, so `npm ci` skips them as foreign platforms
// instead of failing. Run after every `npm install` that changes package-lock.json.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const lockPath = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openbsd', 'sunos', 'aix', 'netbsd', 'openharmony'];
const CPU = ['arm64', 'x64', 'arm', 'ia32', 'loong64', 'ppc64', 'riscv64', 's390x', 'wasm32', 'mips64el'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (cpu === 'wasm32') return { cpu: ['wasm32'] };
  if (!os || !cpu) return null;
  const entry = { os: [os], cpu: [cpu] };
  if (parts.includes('musl') || parts.includes('musleabihf')) entry.libc = ['musl'];
  else if (os === 'linux' && (parts.includes('gnu') || parts.includes('gnueabihf'))) entry.libc = ['glibc'];
  return entry;
}

let added = 0;
for (const [location, pkg] of Object.entries(packages)) {
  for (const [dep, range] of Object.entries(pkg.optionalDependencies || {})) {
    const base = location ? `${location}/node_modules/` : 'node_modules/';
    if (packages[`${base}${dep}`] || packages[`node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    if (platform.os && platform.os[0] === process.platform && platform.cpu[0] === process.arch) continue;
    packages[`node_modules/${dep}`] = { version: range.replace(/^[\^~]/, ''), optional: true, ...platform };
    added++;
  }
}
fs.writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
process.stdout.write(`complete-lockfile: added ${added} foreign-platform optional entries\n`);
