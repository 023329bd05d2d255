'use strict';
// Tests are hermetic (docs/operations.md, "Tests are hermetic"): nothing a test runs may reach past
// this machine. Loaded by the Jest environment (test/support/hermetic-environment.js), by the
// dashboard's Vitest setup, and with `node --require` by every built process a test spawns
// (test/support/processes.ts sets NODE_OPTIONS), this file patches the connect and look-up
// functions of Node so that a TCP connection, a UDP datagram or a DNS query to anything but the
// loopback (127.0.0.0/8, ::1, localhost) or a unix socket is refused before a packet is sent.
// Every refusal is recorded (in memory, and as a JSON line in $OUTBOUND_GUARD_RECORD when set), so
// the test that caused it fails, naming the address, even when the code that tried (a retrying
// webhook worker) swallows the error. Plain JavaScript, no dependency: it is preloaded into
// processes that have not compiled anything yet.
const dgram = require('node:dgram');
const dns = require('node:dns');
const fs = require('node:fs');
const net = require('node:net');
const { isMainThread, threadId } = require('node:worker_threads');

const RECORD_ENV = 'OUTBOUND_GUARD_RECORD';
const OWNER_ENV = 'OUTBOUND_GUARD_OWNER';
/** Set (to 1) only by the guard's own test, for a process whose refusals it provokes on purpose. */
const EXPECTED_ENV = 'OUTBOUND_GUARD_EXPECTED';
const ERROR_CODE = 'EHERMETIC';
/** One guard per module instance of `net`: Jest loads this file once per test file, the patch stays. */
const STATE = Symbol.for('rewards-service.outbound-guard');

const loopback = new net.BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

function bare(host) {
  let h = String(host).toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  const zone = h.indexOf('%');
  return zone >= 0 ? h.slice(0, zone) : h;
}

/** 127.0.0.0/8, ::1 or an IPv4-mapped 127.x address. */
function isLoopbackAddress(host) {
  const h = bare(host);
  const family = net.isIP(h);
  return family !== 0 && loopback.check(h, family === 4 ? 'ipv4' : 'ipv6');
}

/** A name that never leaves the machine to resolve (RFC 6761: localhost and its subdomains). */
function isLocalName(host) {
  const h = bare(host).replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

function state() {
  return net[STATE];
}

/** Records a refusal and returns the error the caller gets. */
function refuse(what) {
  const s = state();
  const entry = { kind: 'refused', what, pid: process.pid, thread: threadId, owner: s.owner, at: new Date().toISOString() };
  if (s.expecting > 0 || process.env[EXPECTED_ENV] === '1') entry.expected = true;
  s.refusals.push(entry);
  const record = process.env[RECORD_ENV];
  if (record) {
    try {
      fs.appendFileSync(record, `${JSON.stringify(entry)}\n`);
    } catch {
      // The in-memory record is still there; the test process reads it.
    }
  } else if (!s.inJest) {
    process.stderr.write(`outbound-connection guard: refused ${what}\n`);
  }
  return Object.assign(new Error(`outbound-connection guard: refused ${what} (tests never leave the machine; docs/operations.md, "Tests are hermetic")`), {
    code: ERROR_CODE,
  });
}

/** What `socket.connect(...)` was asked for, normalized as node's own normalizeArgs does. */
function connectOptions(args) {
  const [first, second] = args;
  if (Array.isArray(first)) return first[0] && typeof first[0] === 'object' ? first[0] : {};
  if (first !== null && typeof first === 'object') return first;
  if (typeof first === 'string' && !/^\s*\d+\s*$/.test(first)) return { path: first };
  return { port: first, host: typeof second === 'string' ? second : undefined };
}

/** A look-up function whose every answer must be a loopback address. */
function checkedLookup(lookup, host, port) {
  if (lookup[STATE]) return lookup;
  const checked = function (hostname, options, callback) {
    const cb = typeof options === 'function' ? options : callback;
    const opts = typeof options === 'function' ? {} : options;
    return lookup.call(this, hostname, opts, (error, address, ...rest) => {
      if (error) return cb(error, address, ...rest);
      const addresses = Array.isArray(address) ? address.map((a) => a.address) : [address];
      const outside = addresses.find((a) => !isLoopbackAddress(a));
      if (outside !== undefined) return cb(refuse(`connection to ${host}:${port} (resolved to ${outside})`));
      return cb(error, address, ...rest);
    });
  };
  checked[STATE] = true;
  return checked;
}

function patchSockets() {
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(...args) {
    const options = connectOptions(args);
    if (options.path == null && options.fd == null) {
      const host = options.host ?? 'localhost';
      const port = options.port;
      let refusal = null;
      if (net.isIP(bare(host))) {
        if (!isLoopbackAddress(host)) refusal = refuse(`connection to ${host}:${port}`);
      } else if (typeof options.lookup === 'function') {
        // The caller resolves the name itself (the webhook client pins the checked address): what it answers must be loopback.
        options.lookup = checkedLookup(options.lookup, host, port);
      } else if (!isLocalName(host)) {
        refusal = refuse(`connection to ${host}:${port} (a DNS look-up of ${host})`);
      }
      if (refusal) {
        process.nextTick(() => this.destroy(refusal));
        return this;
      }
    }
    return connect.apply(this, args);
  };
}

function patchDatagrams() {
  for (const name of ['send', 'connect']) {
    const original = dgram.Socket.prototype[name];
    dgram.Socket.prototype[name] = function guardedDatagram(...args) {
      // send(msg[, offset, length][, port][, address][, callback]) / connect(port[, address][, callback]): the address is the string argument.
      const address = args.slice(name === 'send' ? 1 : 0).find((a) => typeof a === 'string');
      const hasPort = args.slice(name === 'send' ? 1 : 0).some((a) => typeof a === 'number');
      if (address !== undefined || hasPort) {
        const target = address ?? 'localhost';
        if (!(isLocalName(target) || isLoopbackAddress(target))) {
          const error = refuse(`UDP ${name} to ${target}`);
          const callback = args.find((a) => typeof a === 'function');
          process.nextTick(() => (callback ? callback(error) : this.emit('error', error)));
          return undefined;
        }
      }
      return original.apply(this, args);
    };
  }
}

const RESOLVE_METHODS = ['resolve', 'resolveAny', 'resolve4', 'resolve6', 'resolveCaa', 'resolveCname', 'resolveMx', 'resolveNaptr', 'resolveNs', 'resolvePtr', 'resolveSoa', 'resolveSrv', 'resolveTxt'];

/** Patches look-ups on a callback-style (`promises` false) or promise-style object. */
function patchDns(target, promises) {
  const guard = (name, allowed) => {
    const original = target[name];
    if (typeof original !== 'function') return;
    target[name] = function guardedDns(hostname, ...rest) {
      if (allowed(hostname)) return original.call(this, hostname, ...rest);
      const error = refuse(`DNS ${name} of ${hostname}`);
      if (promises) return Promise.reject(error);
      const callback = rest.find((a) => typeof a === 'function');
      if (callback) process.nextTick(() => callback(error));
      return undefined;
    };
  };
  // lookup of an address literal does no I/O (the connection to it is what is checked); of localhost, reads /etc/hosts.
  guard('lookup', (host) => typeof host !== 'string' || net.isIP(bare(host)) !== 0 || isLocalName(host));
  guard('lookupService', (address) => isLoopbackAddress(address));
  guard('reverse', (address) => isLoopbackAddress(address));
  // resolve* always ask the configured name servers (c-ares), whatever the name.
  for (const name of RESOLVE_METHODS) guard(name, () => false);
}

/** Installs the guard in this thread (once); returns its state. */
function install() {
  if (net[STATE]) return net[STATE];
  net[STATE] = { owner: process.env[OWNER_ENV] ?? null, refusals: [], taken: new Map(), inJest: false, expecting: 0 };
  patchSockets();
  patchDatagrams();
  patchDns(dns, false);
  patchDns(dns.Resolver.prototype, false);
  patchDns(dns.promises, true);
  patchDns(dns.promises.Resolver.prototype, true);
  return net[STATE];
}

/** Appends one line to the record (the guard's own account of where it ran). */
function note(entry) {
  const record = process.env[RECORD_ENV];
  if (record) fs.appendFileSync(record, `${JSON.stringify({ ...entry, pid: process.pid, thread: threadId, at: new Date().toISOString() })}\n`);
}

/** Every line of a record file (none if it does not exist). */
function readRecord(path = process.env[RECORD_ENV]) {
  if (!path || !fs.existsSync(path)) return [];
  return fs
    .readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/**
 * The refusals on behalf of `owner` (a test file) not returned before: this process's own, and those
 * its spawned processes wrote to the record.
 */
function takeRefusals(owner) {
  const s = install();
  const own = s.refusals.filter((r) => r.owner === owner);
  const spawned = readRecord().filter((r) => r.kind === 'refused' && r.owner === owner && r.pid !== process.pid);
  const all = [...own, ...spawned];
  const seen = s.taken.get(owner) ?? 0;
  s.taken.set(owner, all.length);
  return all.slice(seen);
}

/**
 * Runs `attempt` with its refusals marked expected: the guard's own test provokes refusals on
 * purpose, and the run's account counts them apart from real ones.
 */
async function expecting(attempt) {
  const s = install();
  s.expecting += 1;
  try {
    return await attempt();
  } finally {
    s.expecting -= 1;
  }
}

/** The error a test fails with, naming every refused address. */
function failure(refusals) {
  const lines = refusals.map((r) => `  - ${r.what}${r.pid !== process.pid ? ` (in spawned process ${r.pid})` : ''}`);
  return new Error(
    `outbound-connection guard: ${refusals.length} connection(s) past the loopback refused; tests must stay on this machine (docs/operations.md, "Tests are hermetic"):\n${lines.join('\n')}`,
  );
}

/** The environment a spawned Node process needs to carry the guard, recording for `owner` (`expected`: see expecting()). */
function childEnv(owner, { expected = false } = {}) {
  const env = { NODE_OPTIONS: `--require "${module.filename}"` };
  if (expected) env[EXPECTED_ENV] = '1';
  if (process.env[RECORD_ENV]) env[RECORD_ENV] = process.env[RECORD_ENV];
  if (owner) env[OWNER_ENV] = owner;
  return env;
}

module.exports = { install, note, readRecord, takeRefusals, expecting, failure, childEnv, isLoopbackAddress, isLocalName, RECORD_ENV, OWNER_ENV, ERROR_CODE };

// Preloaded with --require (NODE_OPTIONS) into a spawned process and its threads: guard it, and say so in the record.
if (`${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`.includes(module.filename) && !net[STATE]) {
  install();
  note({ kind: 'spawned', owner: process.env[OWNER_ENV] ?? null, main: isMainThread });
}
