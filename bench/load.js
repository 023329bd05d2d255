'use strict';
// The load generators: autocannon for closed-loop phases (every connection kept busy), and a paced
// open-loop client for phases offered at a fixed rate. Also the request bodies the phases send.
const crypto = require('node:crypto');
const http = require('node:http');
const { performance } = require('node:perf_hooks');
const autocannon = require('autocannon');
const { BASE, CONNECTIONS, CHOICE_CENTS, sleep } = require('./config');
const { round, stats } = require('./numbers');

function cannon(opts) {
  return new Promise((resolve, reject) => {
    autocannon({ url: BASE, connections: CONNECTIONS, timeout: 30, ...opts }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

/** autocannon's result as the phase figures: successes per second (2xx, or the expected status) and latency. */
function summarise(res, expected = 2) {
  const ok = expected === 2 ? res['2xx'] : res.statusCodeStats?.[String(expected)]?.count || 0;
  const errors = res.errors + res.timeouts + (res.requests.total - ok - res.errors - res.timeouts);
  return {
    rps: round(ok / res.duration, 1),
    ok,
    p50: res.latency.p50,
    p99: res.latency.p99,
    mean: round(res.latency.average, 2),
    errors,
    statusCodes: Object.fromEntries(Object.entries(res.statusCodeStats || {}).map(([k, v]) => [k, v.count])),
    durationS: round(res.duration, 2),
    connections: res.connections,
  };
}

/**
 * Open-loop load at `rate` requests/s, evenly spaced, over at most CONNECTIONS keep-alive
 * connections. autocannon's own rate option is not used for this: it lets each connection send its
 * per-second quota back to back at the start of every second (lib/httpClient.js, rateInterval), so
 * "half of peak" would arrive as full-speed bursts. Latency counts from the scheduled send time, so
 * a request that waits for a free connection is charged for the wait (no coordinated omission).
 */
async function paced(merchants, body, rate, seconds, { samples = false } = {}) {
  // FIFO: every pooled socket is used in turn, so none idles past the server's keep-alive timeout
  // (with Node's default LIFO, a rarely used socket can be closed by the server just as it is reused).
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS, scheduling: 'fifo' });
  const total = Math.round(rate * seconds);
  const latencies = [];
  const timeline = [];
  const statusCodes = {};
  let errors = 0;
  let ok = 0;
  const started = performance.now();
  const one = (i) =>
    new Promise((resolve) => {
      const m = merchants[i % merchants.length];
      const scheduled = started + (i * 1000) / rate;
      const payload = body(i);
      const req = http.request(
        `${BASE}/v1/rewards`,
        {
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${m.key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), 'content-length': Buffer.byteLength(payload) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - scheduled);
            timeline.push([scheduled - started, performance.now() - scheduled, status(res.statusCode)]);
            statusCodes[res.statusCode] = (statusCodes[res.statusCode] || 0) + 1;
            if (res.statusCode >= 200 && res.statusCode < 300) ok++;
            else errors++;
            resolve();
          });
        },
      );
      req.on('error', (error) => {
        errors++;
        statusCodes[error.code || 'error'] = (statusCodes[error.code || 'error'] || 0) + 1;
        resolve();
      });
      req.end(payload);
    });
  const inflight = [];
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 1) await sleep(wait);
    inflight.push(one(i));
  }
  await Promise.all(inflight);
  agent.destroy();
  const durationS = (performance.now() - started) / 1000;
  const s = stats(latencies);
  const epoch = Date.now() - performance.now();
  return {
    // With `samples`: each response as [scheduled send time (epoch ms), latency ms, 2xx], to cut the run into slices.
    ...(samples ? { samples: timeline.map(([at, ms, ok]) => [Math.round(epoch + started + at), round(ms, 1), ok]) } : {}),
    rps: round(ok / seconds, 1),
    ok,
    p50: round(s.p50, 0),
    p99: round(s.p99, 0),
    mean: s.mean,
    errors,
    statusCodes,
    durationS: round(durationS, 2),
    connections: CONNECTIONS,
    pacing: 'open loop, evenly spaced; latency from the scheduled send time',
    // Where the tail lies: the slowest seconds of the run (second, requests over 50 ms, worst ms).
    slowestSeconds: Object.entries(
      timeline.reduce((acc, [at, ms]) => {
        const second = Math.floor(at / 1000);
        const entry = (acc[second] = acc[second] || { over50: 0, worst: 0 });
        if (ms > 50) entry.over50++;
        entry.worst = Math.max(entry.worst, ms);
        return acc;
      }, {}),
    )
      .map(([second, v]) => ({ second: Number(second), over50: v.over50, worstMs: round(v.worst, 0) }))
      .sort((a, b) => b.over50 - a.over50 || b.worstMs - a.worstMs)
      .slice(0, 5),
  };
}

const status = (code) => code >= 200 && code < 300;

const choiceBody = (i) =>
  JSON.stringify({ type: 'CHOICE', valueCents: CHOICE_CENTS, recipient: { email: `r${i}@example.test`, firstName: 'Ada' } });

/** The same CHOICE reward in EUR, its whole value converted from the USD wallet in the send (fundingCurrency). */
const fundedChoiceBody = (i) =>
  JSON.stringify({ type: 'CHOICE', valueCents: CHOICE_CENTS, currency: 'EUR', fundingCurrency: 'USD', recipient: { email: `r${i}@example.test`, firstName: 'Ada' } });

/** autocannon requests creating rewards round-robin over `merchants`, each with a fresh Idempotency-Key. */
function createRequests(merchants, body, onCreated) {
  let i = 0;
  return [
    {
      method: 'POST',
      path: '/v1/rewards',
      setupRequest: (req) => {
        const m = merchants[i % merchants.length];
        i++;
        return {
          ...req,
          headers: { authorization: `Bearer ${m.key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
          body: body(i),
        };
      },
      onResponse: onCreated ? (status, resBody) => status === 201 && onCreated(resBody) : undefined,
    },
  ];
}

module.exports = { cannon, summarise, paced, choiceBody, fundedChoiceBody, createRequests };
