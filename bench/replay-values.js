'use strict';
// Fresh values for each replay of the captured creation. The capture holds the values of one real
// request; those that differed between two captures are per request (ids, key and token hashes,
// times, the sealed idempotent response) and must be new, in the same format, on every replay, or
// the replay would collide with rows it wrote before (or, worse, be skipped as a duplicate and
// still look like throughput). The formats are listed below, not guessed: a per-request value in
// any other format stops the bench, so that a change of id format in the service shows up as an
// error to fix here rather than as a quietly wrong ceiling.
const crypto = require('node:crypto');

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE64 = `${BASE62}+/`;
const HEX = '0123456789abcdef';

function randomChars(n, alphabet) {
  const bytes = crypto.randomBytes(n);
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[bytes[i] % alphabet.length];
  return s;
}

/** The per-request value formats the replay knows, each with how to make a new value of it. */
const VALUE_FORMATS = [
  {
    // newId() of libs/core/src/ids: a lowercase prefix, "_", then 16 random bytes as 22 base62 characters.
    name: 'prefixed id',
    pattern: /^[a-z]+_[0-9A-Za-z]{22}$/,
    fresh: (v) => v.slice(0, v.indexOf('_') + 1) + randomChars(22, BASE62),
  },
  // hashSecret() and the idempotency key's hash: SHA-256, lowercase hex.
  { name: 'SHA-256 hex digest', pattern: /^[0-9a-f]{64}$/, fresh: () => randomChars(64, HEX) },
  { name: 'UUID', pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, fresh: () => crypto.randomUUID() },
  { name: 'ISO timestamp', pattern: /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d(:?\d\d)?)$/, fresh: () => new Date().toISOString() },
  {
    // A value sealed under the key ring (libs/core/src/crypto/key-ring.ts): "v1:<key id>:" and base64url
    // (the stored idempotent response, the redemption token).
    name: 'key-ring sealed value',
    pattern: /^v1:[A-Za-z0-9_-]{1,32}:[A-Za-z0-9_-]+$/,
    fresh: (v) => {
      const head = v.slice(0, v.indexOf(':', 3) + 1);
      return head + randomChars(v.length - head.length, `${BASE62}-_`);
    },
  },
  {
    // The stored response of an idempotent request before the key ring sealed it: AES-GCM iv, tag and data, base64, joined by dots.
    name: 'sealed response',
    pattern: /^[A-Za-z0-9+/]+={0,2}\.[A-Za-z0-9+/]+={0,2}\.[A-Za-z0-9+/]+={0,2}$/,
    fresh: (v) =>
      v
        .split('.')
        .map((part) => {
          const body = part.replace(/=+$/, '');
          return randomChars(body.length, BASE64) + part.slice(body.length);
        })
        .join('.'),
  },
];

class UnknownValueFormat extends Error {
  constructor(value, where) {
    const shown = typeof value === 'string' && value.length > 80 ? `${value.slice(0, 80)}…` : JSON.stringify(value);
    super(
      `ceiling replay: ${where} differs between two captures of the same request, so it must be made fresh for every ` +
        `replay, but ${shown} matches none of the formats the replay knows (${VALUE_FORMATS.map((f) => f.name).join(', ')}). ` +
        'Has an id format changed? Teach bench/replay-values.js the new format instead of replaying stale values.',
    );
    this.name = 'UnknownValueFormat';
    this.value = value;
  }
}

/** A string that can be one id, hash or time on its own (no spaces, no JSON). */
const isAtom = (v) => typeof v === 'string' && !/[\s{"]/.test(v);

/**
 * Checks the plan once and returns `valuesFor(accountId)`: the parameters of every statement for one
 * replay, with each per-request value replaced by a fresh one (the same fresh value everywhere the
 * captured one appeared, inside JSON and text too) and the captured account swapped for `accountId`.
 * Throws UnknownValueFormat for a per-request value it cannot renew.
 */
function compileReplay(plan) {
  const formats = new Map(); // captured per-request value → its format
  const classify = (value, where) => {
    if (formats.has(value)) return;
    const format = VALUE_FORMATS.find((f) => f.pattern.test(value));
    if (!format) throw new UnknownValueFormat(value, where);
    formats.set(value, format);
  };
  const nonAtoms = []; // varying texts (JSON, sentences) that must change through the values inside them
  plan.statements.forEach((s, i) => {
    for (const v of s.jsonAtoms || []) {
      if (isAtom(v)) classify(v, `a value inside a JSON parameter of statement ${i + 1}`);
      else nonAtoms.push([v, `a text inside a JSON parameter of statement ${i + 1}`]);
    }
    s.values.forEach((v, j) => {
      const check = (value, vary, where) => {
        if (!vary) return;
        if (typeof value === 'string') {
          if (isAtom(value)) classify(value, where);
          else nonAtoms.push([value, where]);
        } else if (value && value.$json) nonAtoms.push([value.$json, where]);
        else if (!(value && (value.$date || value.$buffer))) throw new UnknownValueFormat(value, where);
      };
      if (Array.isArray(v)) v.forEach((e, k) => check(e, s.varying[j][k], `element ${k + 1} of parameter $${j + 1} of statement ${i + 1}`));
      else check(v, s.varying[j], `parameter $${j + 1} of statement ${i + 1}`);
    });
  });
  const atoms = [...formats.keys()];
  // A varying text is renewed through the per-request values it contains; one that contains none
  // varies for a reason the replay does not know.
  for (const [text, where] of nonAtoms) if (!atoms.some((a) => text.includes(a))) throw new UnknownValueFormat(text, where);

  return function valuesFor(accountId) {
    const map = new Map([[plan.accountId, accountId]]);
    for (const [atom, format] of formats) map.set(atom, format.fresh(atom));
    const substitute = (str) => {
      let out = str.split(plan.accountId).join(accountId);
      for (const atom of atoms) out = out.split(atom).join(map.get(atom));
      return out;
    };
    const one = (v, vary) => {
      if (typeof v === 'string') {
        if (map.has(v)) return map.get(v);
        return vary || v.includes(plan.accountId) ? substitute(v) : v;
      }
      if (v && v.$json) return JSON.parse(substitute(v.$json));
      if (v && v.$date) return vary ? new Date() : new Date(v.$date);
      if (v && v.$buffer) return vary ? crypto.randomBytes(Buffer.from(v.$buffer, 'base64').length) : Buffer.from(v.$buffer, 'base64');
      return v;
    };
    return plan.statements.map((s) => s.values.map((v, j) => (Array.isArray(v) ? v.map((e, k) => one(e, s.varying[j][k])) : one(v, s.varying[j]))));
  };
}

module.exports = { compileReplay, VALUE_FORMATS, UnknownValueFormat };
