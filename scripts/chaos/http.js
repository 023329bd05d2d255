'use strict';
// One HTTP request with a hard timeout (node:http, so a hung server cannot hold a client past it).
const http = require('node:http');

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/**
 * Resolves {status, headers, body (parsed JSON or text)}; rejects with `err.kind` = `timeout` or
 * `network` (refused, reset, closed).
 */
function request(url, { method = 'GET', headers = {}, body, timeoutMs = 10_000 } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(url, {
      method,
      agent,
      headers: { ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}), ...headers },
    });
    let settled = false;
    const fail = (kind, message) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(Object.assign(new Error(message), { kind }));
    };
    const timer = setTimeout(() => fail('timeout', `no answer in ${timeoutMs} ms`), timeoutMs);
    req.on('error', (error) => fail('network', error.code || error.message));
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('error', (error) => fail('network', error.code || error.message));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed = text;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode, headers: res.headers, body: parsed });
      });
    });
    if (payload) req.write(payload);
    req.end();
  });
}

module.exports = { request };
