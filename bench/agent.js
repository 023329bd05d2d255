'use strict';
// Loaded into the service by the bench only (`node -r ./bench/agent.js dist/apps/api/src/main.js`),
// never by product code. It answers commands from the bench over the IPC channel:
//  - capture-start / capture-stop: every SQL statement sent through `pg` (text, values, client id,
//    start time), i.e. the query log of one reward creation, taken from the driver itself;
//  - stats-start / stats-stop: per statement text, calls and total/mean client-side time, a
//    pg_stat_statements stand-in (that extension is not in shared_preload_libraries here and the
//    shared server must not be restarted);
//  - prof-start / prof-stop: the V8 CPU profiler (what `--cpu-prof` uses), summarised by self time.
// When no command is active the only cost is one boolean test per query.
const inspector = require('node:inspector');
const pg = require('pg');

if (typeof process.send === 'function') {
  let capturing = null;
  let stats = null;
  let clientSeq = 0;
  const clientIds = new WeakMap();
  const idOf = (client) => {
    if (!clientIds.has(client)) clientIds.set(client, ++clientSeq);
    return clientIds.get(client);
  };
  const originalQuery = pg.Client.prototype.query;
  pg.Client.prototype.query = function query(config, values, callback) {
    if (!capturing && !stats) return originalQuery.call(this, config, values, callback);
    const text = typeof config === 'string' ? config : config && config.text;
    const params = typeof config === 'object' && config && config.values ? config.values : Array.isArray(values) ? values : [];
    if (capturing && text) capturing.push({ t: Number(process.hrtime.bigint()) / 1e6, client: idOf(this), text, values: params.map(encode) });
    if (!stats || !text) return originalQuery.call(this, config, values, callback);
    const started = process.hrtime.bigint();
    const table = stats;
    const record = () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const key = text.replace(/\s+/g, ' ').trim();
      const entry = table.get(key) || { calls: 0, totalMs: 0 };
      entry.calls += 1;
      entry.totalMs += ms;
      table.set(key, entry);
    };
    const cb = typeof values === 'function' ? values : callback;
    if (typeof cb === 'function') {
      const wrapped = (err, res) => {
        record();
        cb(err, res);
      };
      return typeof values === 'function' ? originalQuery.call(this, config, wrapped) : originalQuery.call(this, config, values, wrapped);
    }
    const result = originalQuery.call(this, config, values, callback);
    if (result && typeof result.then === 'function') result.then(record, record);
    return result;
  };

  let session = null;
  const post = (method, params) =>
    new Promise((resolve, reject) => session.post(method, params || {}, (err, res) => (err ? reject(err) : resolve(res))));

  process.on('message', async (msg) => {
    if (!msg || typeof msg.cmd !== 'string' || !msg.cmd.startsWith('bench:')) return;
    const reply = (body) => process.send({ reply: msg.id, ...body });
    try {
      switch (msg.cmd) {
        case 'bench:capture-start':
          capturing = [];
          return reply({ ok: true });
        case 'bench:capture-stop': {
          const queries = capturing || [];
          capturing = null;
          return reply({ queries });
        }
        case 'bench:stats-start':
          stats = new Map();
          return reply({ ok: true });
        case 'bench:stats-stop': {
          const rows = [...(stats || new Map()).entries()].map(([text, s]) => ({ text, calls: s.calls, totalMs: s.totalMs, meanMs: s.totalMs / s.calls }));
          stats = null;
          rows.sort((a, b) => b.totalMs - a.totalMs);
          return reply({ statements: rows });
        }
        case 'bench:prof-start':
          session = new inspector.Session();
          session.connect();
          await post('Profiler.enable');
          await post('Profiler.setSamplingInterval', { interval: 1000 });
          await post('Profiler.start');
          return reply({ ok: true });
        case 'bench:prof-stop': {
          const { profile } = await post('Profiler.stop');
          if (process.env.BENCH_PROFILE_DIR) {
            require('node:fs').writeFileSync(require('node:path').join(process.env.BENCH_PROFILE_DIR, `${Date.now()}.cpuprofile`), JSON.stringify(profile));
          }
          session.disconnect();
          session = null;
          return reply({ summary: summarise(profile) });
        }
        default:
          return reply({ error: `unknown ${msg.cmd}` });
      }
    } catch (error) {
      return reply({ error: String((error && error.stack) || error) });
    }
  });
}

function encode(value) {
  if (Array.isArray(value)) return value.map(encode);
  if (value instanceof Date) return { $date: value.toISOString() };
  if (Buffer.isBuffer(value)) return { $buffer: value.toString('base64') };
  if (value !== null && typeof value === 'object') return { $json: JSON.stringify(value) };
  return value;
}

/** Self time by function and by area (package or our own code), from a V8 CPU profile. */
function summarise(profile) {
  const interval = (profile.endTime - profile.startTime) / Math.max(1, profile.samples.length) / 1000; // ms per sample
  const byFunction = new Map();
  const byArea = new Map();
  let total = 0;
  for (const node of profile.nodes) {
    if (!node.hitCount) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    total += node.hitCount;
    const fn = `${functionName || '(anonymous)'} ${shortUrl(url)}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) || 0) + node.hitCount);
    const area = areaOf(functionName, url);
    byArea.set(area, (byArea.get(area) || 0) + node.hitCount);
  }
  const top = (map, n) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, hits]) => ({ name, pct: +((100 * hits) / total).toFixed(1), ms: Math.round(hits * interval) }));
  return { samples: total, wallMs: Math.round((profile.endTime - profile.startTime) / 1000), areas: top(byArea, 14), functions: top(byFunction, 20) };
}

function shortUrl(url) {
  if (!url) return '';
  const i = url.lastIndexOf('node_modules/');
  if (i >= 0) return url.slice(i + 13);
  const d = url.indexOf('/dist/');
  return d >= 0 ? url.slice(d + 1) : url.replace(/^file:\/\//, '');
}

function areaOf(functionName, url) {
  if (!url) return functionName === '(idle)' ? '(idle)' : functionName === '(garbage collector)' ? '(gc)' : `(${functionName || 'native'})`;
  const m = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (m) return m[1];
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const d = url.match(/\/dist\/(?:libs|apps)\/([^/]+)/);
  if (d) return `app:${d[1]}`;
  return url;
}
