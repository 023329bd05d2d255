'use strict';
// Shared by the chaos modules: the repository root, a timestamped log line on stderr, sleep.
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const T0 = Date.now();

function log(message) {
  const s = ((Date.now() - T0) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`[chaos ${s}s] ${message}\n`);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

module.exports = { ROOT, log, sleep };
