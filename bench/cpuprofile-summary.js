#!/usr/bin/env node
'use strict';
// `node bench/cpuprofile-summary.js <file.cpuprofile> [--from <function>] [--top N]`: self time of a V8 CPU
// profile (`--cpu-prof`) per function and per module (a package under node_modules, a file of this
// repository, node's own, or V8's: (garbage collector), (program), (idle)). With --from, only the span from
// the first to the last sample whose stack holds a function of that name (e.g. `deliver`: the e-mails,
// without the start-up). Inclusive time of a few named functions is printed with --incl a,b,c.
const fs = require('node:fs');

const print = (line) => process.stdout.write(`${line}\n`);

const args = process.argv.slice(2);
const file = args[0];
const opt = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const from = opt('--from');
const top = Number(opt('--top') || 40);
const incl = (opt('--incl') || '').split(',').filter(Boolean);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));

const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const stackOf = (id) => {
  const names = [];
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) names.push(nodes.get(cur).callFrame);
  return names;
};

function moduleOf(url) {
  if (!url) return '(native/V8)';
  if (url.startsWith('node:')) return url;
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const dist = url.indexOf('/dist/');
  return dist >= 0 ? url.slice(dist + 1) : url.replace(/^file:\/\//, '');
}

// Sample times.
const times = [];
let t = profile.startTime;
for (const d of profile.timeDeltas) times.push((t += d));
let lo = 0;
let hi = profile.samples.length - 1;
if (from) {
  const hits = [];
  const cache = new Map();
  profile.samples.forEach((id, i) => {
    if (!cache.has(id)) cache.set(id, stackOf(id).some((f) => f.functionName === from));
    if (cache.get(id)) hits.push(i);
  });
  if (!hits.length) throw new Error(`no sample under ${from}`);
  lo = hits[0];
  hi = hits[hits.length - 1];
}
const self = new Map();
const byModule = new Map();
const inclusive = new Map(incl.map((n) => [n, 0]));
let total = 0;
let idle = 0;
for (let i = lo; i <= hi; i++) {
  const dt = (times[i + 1] ?? times[i]) - times[i];
  const node = nodes.get(profile.samples[i]);
  const f = node.callFrame;
  if (f.functionName === '(idle)') {
    idle += dt;
    continue;
  }
  total += dt;
  const key = `${f.functionName || '(anonymous)'} ${moduleOf(f.url)}:${f.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + dt);
  const mod = f.url ? moduleOf(f.url) : f.functionName;
  byModule.set(mod, (byModule.get(mod) ?? 0) + dt);
  if (incl.length) {
    const names = new Set(stackOf(node.id).map((c) => c.functionName));
    for (const n of incl) if (names.has(n)) inclusive.set(n, inclusive.get(n) + dt);
  }
}
const pct = (v) => `${((100 * v) / total).toFixed(1).padStart(5)} %  ${(v / 1000).toFixed(0).padStart(7)} ms`;
print(`${file}\nspan ${((times[hi] - times[lo]) / 1e6).toFixed(1)} s, busy ${(total / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s`);
print('\nby module (self time)');
for (const [k, v] of [...byModule].sort((a, b) => b[1] - a[1]).slice(0, top)) print(`${pct(v)}  ${k}`);
print('\nby function (self time)');
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) print(`${pct(v)}  ${k}`);
if (incl.length) {
  print('\ninclusive');
  for (const [k, v] of inclusive) print(`${pct(v)}  ${k}`);
}
