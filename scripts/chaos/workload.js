'use strict';
// The workload: virtual users, each on one merchant, sending FIXED and CHOICE rewards (some expiring
// within seconds, some of the brand whose cards always fail), picking cards on the redemption API,
// cancelling, resending, bulk sending and reading. Every client retries on a network error, a timeout,
// a 429 or a 5xx with the same Idempotency-Key, failing over to the other API process. Every HTTP
// attempt is recorded (start, API, outcome kind, latency); what the clients learned (which reward each
// key made, which card each pick key made) is kept for the audit.
const crypto = require('node:crypto');
const { request } = require('./http');
const { log, sleep } = require('./util');

const ATTEMPT_TIMEOUT_MS = 10_000;
const OPERATION_BUDGET_MS = 120_000;
const RUN = crypto.randomBytes(3).toString('hex');

/** Outcome kind of one HTTP attempt. `rejected` is a 4xx the workload expects (the state moved on). */
function kindOf(res, expected4xx) {
  if (res.status >= 200 && res.status < 300) return res.headers['idempotent-replayed'] === 'true' ? 'replayed' : 'ok';
  if (res.status === 429) return 'http_429';
  if (res.status === 503) return 'http_503';
  if (res.status >= 500) return 'http_5xx';
  if (expected4xx.includes(res.status)) return 'rejected';
  return `http_${res.status}`;
}

const RETRYABLE = new Set(['http_429', 'http_503', 'http_5xx', 'timeout', 'network']);

class Recorder {
  constructor() {
    this.attempts = []; // {start, end, op, kind, ms, api, retryAfter}
    this.operations = []; // {op, start, end, outcome, attempts}
    this.inflight = new Map(); // attempt number -> start, while it waits for its answer
    this.seq = 0;
  }

  /** Start of the oldest attempt still waiting for an answer, or null. */
  oldestInflight() {
    let oldest = null;
    for (const start of this.inflight.values()) if (oldest === null || start < oldest) oldest = start;
    return oldest;
  }
}

class Client {
  /** @param apis the API base URLs, in the order this client prefers them */
  constructor(apis, recorder) {
    this.apis = apis;
    this.current = 0;
    this.recorder = recorder;
  }

  /**
   * One logical operation: attempts until a non-retryable answer or the budget runs out. The same
   * headers (so the same Idempotency-Key) on every attempt.
   */
  async call(op, method, path, { body, headers = {}, expected4xx = [], retry = true } = {}) {
    const start = Date.now();
    let attempts = 0;
    for (;;) {
      attempts += 1;
      const api = this.apis[this.current % this.apis.length];
      const t = Date.now();
      let res = null;
      let kind;
      const id = ++this.recorder.seq;
      this.recorder.inflight.set(id, t);
      try {
        res = await request(`${api}${path}`, { method, headers, body, timeoutMs: ATTEMPT_TIMEOUT_MS });
        kind = kindOf(res, expected4xx);
      } catch (error) {
        kind = error.kind || 'network';
      } finally {
        this.recorder.inflight.delete(id);
      }
      const end = Date.now();
      const retryAfter = res && res.headers['retry-after'] !== undefined ? Number(res.headers['retry-after']) : null;
      this.recorder.attempts.push({ start: t, end, op, kind, ms: end - t, api, status: res ? res.status : null, retryAfter });
      if (!RETRYABLE.has(kind) || !retry || end - start > OPERATION_BUDGET_MS) {
        const outcome = RETRYABLE.has(kind) ? 'gave_up' : kind === 'ok' || kind === 'replayed' ? 'ok' : kind;
        this.recorder.operations.push({ op, start, end, outcome, attempts });
        return { res, kind, attempts, outcome };
      }
      // A dead or failing process: try the other one next.
      if (kind === 'network' || kind === 'timeout' || kind === 'http_5xx' || kind === 'http_503') this.current += 1;
      const backoff = Math.min(2000, 100 * 2 ** Math.min(attempts, 5)) * (0.5 + Math.random() / 2);
      const wait = retryAfter !== null && Number.isFinite(retryAfter) ? Math.min(5000, Math.max(backoff, retryAfter * 1000)) : backoff;
      await sleep(wait);
    }
  }
}

function choose(weights) {
  const total = weights.reduce((s, [, w]) => s + w, 0);
  let r = Math.random() * total;
  for (const [name, w] of weights) {
    r -= w;
    if (r <= 0) return name;
  }
  return weights[weights.length - 1][0];
}

const randomItem = (list) => list[Math.floor(Math.random() * list.length)];

/** What the audit needs from the clients. */
class Knowledge {
  constructor() {
    this.createKeys = new Map(); // key -> {accountId, rewardIds:Set, outcome}
    this.pickKeys = new Map(); // key -> {rewardId, cardIds:Set}
    this.violations = [];
  }

  sawReward(key, accountId, rewardId) {
    const entry = this.createKeys.get(key) || { accountId, rewardIds: new Set() };
    entry.rewardIds.add(rewardId);
    this.createKeys.set(key, entry);
    if (entry.rewardIds.size > 1) this.violations.push(`idempotency key ${key} answered with two rewards: ${[...entry.rewardIds].join(', ')}`);
  }
}

class Workload {
  /** @param rate operations a second over all users: a paced open loop, so the service has headroom to recover */
  constructor({ apis, merchants, catalog, users, rate }) {
    this.apis = apis;
    this.merchants = merchants;
    this.catalog = catalog;
    this.users = users;
    this.intervalMs = (users / rate) * 1000;
    this.recorder = new Recorder();
    this.knowledge = new Knowledge();
    this.running = false;
    this.seq = 0;
  }

  key(prefix) {
    this.seq += 1;
    return `${prefix}-${RUN}-${this.seq}`;
  }

  start() {
    this.running = true;
    this.loops = Array.from({ length: this.users }, (_, i) => this.userLoop(i));
  }

  async stop() {
    this.running = false;
    await Promise.all(this.loops);
  }

  async userLoop(i) {
    const merchant = this.merchants[i % this.merchants.length];
    // Half the users prefer the first API, half the second, so killing one API hits half the clients.
    const client = new Client(i % 2 === 0 ? this.apis : [...this.apis].reverse(), this.recorder);
    const state = { choice: [], recent: [] };
    let next = Date.now() + Math.random() * this.intervalMs;
    while (this.running) {
      // An operation stuck in retries delays this user's next ones; it never makes a burst later.
      await sleep(Math.max(0, next - Date.now()));
      next = Math.max(next, Date.now()) + this.intervalMs * (0.5 + Math.random());
      if (!this.running) break;
      const op = choose([
        ['fixed', 3],
        ['choice', 3],
        ['pick', 4],
        ['cancel', 1],
        ['resend', 1],
        ['bulk', 0.3],
        ['read', 2],
      ]);
      try {
        await this[op](client, merchant, state);
      } catch (error) {
        log(`workload ${op}: ${error.stack || error.message}`);
        await sleep(1000);
      }
    }
  }

  auth(merchant, extra = {}) {
    return { authorization: `Bearer ${merchant.key}`, ...extra };
  }

  async send(client, merchant, state, body, op) {
    const key = this.key(op);
    const full = { ...body, externalId: key, recipient: { email: `${key}@chaos.test`, firstName: 'Chaos' } };
    const { res, outcome } = await client.call(op, 'POST', '/v1/rewards', { body: full, headers: this.auth(merchant, { 'idempotency-key': key }) });
    this.knowledge.createKeys.set(key, this.knowledge.createKeys.get(key) || { accountId: merchant.accountId, rewardIds: new Set() });
    if (outcome !== 'ok') return null;
    const reward = res.body.reward;
    this.knowledge.sawReward(key, merchant.accountId, reward.id);
    state.recent.push(reward.id);
    if (state.recent.length > 50) state.recent.shift();
    return { reward, token: new URL(res.body.redemptionUrl).pathname.split('/').pop() };
  }

  async fixed(client, merchant, state) {
    const item = Math.random() < 0.05 ? this.catalog.failing : this.catalog.fixed;
    await this.send(client, merchant, state, { type: 'FIXED', utid: item.utid, valueCents: item.valueCents }, 'fixed');
  }

  async choice(client, merchant, state) {
    const expiring = Math.random() < 0.3;
    const body = { type: 'CHOICE', valueCents: 5000 };
    if (expiring) body.expiresAt = new Date(Date.now() + 5_000 + Math.random() * 15_000).toISOString();
    const sent = await this.send(client, merchant, state, body, expiring ? 'choice_expiring' : 'choice');
    if (sent) {
      state.choice.push({ id: sent.reward.id, token: sent.token, picks: 0 });
      if (state.choice.length > 30) state.choice.shift();
    }
  }

  async pick(client, merchant, state) {
    if (state.choice.length === 0) return this.choice(client, merchant, state);
    const target = randomItem(state.choice);
    const page = await client.call('redeem_view', 'GET', `/r/${target.token}/api`);
    if (page.outcome !== 'ok') return;
    if (!page.res.body.reward.canPick) {
      state.choice.splice(state.choice.indexOf(target), 1);
      return;
    }
    const remaining = page.res.body.reward.remainingValueCents;
    const item = this.catalog.variable;
    const amount = Math.min(remaining, item.minCents + Math.floor(Math.random() * 4) * 500);
    if (amount < item.minCents) return;
    const key = this.key('pick');
    target.picks += 1;
    const entry = { rewardId: target.id, cardIds: new Set() };
    this.knowledge.pickKeys.set(key, entry);
    const { res, outcome } = await client.call('pick', 'POST', `/r/${target.token}/api/cards`, {
      body: { utid: item.utid, amountCents: amount },
      headers: { 'idempotency-key': key },
      // 422: another pick, the expiry or a cancel got there first
      expected4xx: [422],
    });
    if (outcome === 'ok') {
      entry.cardIds.add(res.body.card.id);
      if (entry.cardIds.size > 1) this.knowledge.violations.push(`pick key ${key} answered with two cards`);
    }
  }

  async cancel(client, merchant, state) {
    if (state.recent.length === 0) return;
    const id = state.recent.splice(Math.floor(Math.random() * state.recent.length), 1)[0];
    // 422: redeemed, expired or already cancelled (also by an earlier attempt of this very call)
    await client.call('cancel', 'POST', `/v1/rewards/${id}/cancel`, { headers: this.auth(merchant), expected4xx: [422] });
  }

  async resend(client, merchant, state) {
    if (state.recent.length === 0) return;
    await client.call('resend', 'POST', `/v1/rewards/${randomItem(state.recent)}/resend`, { headers: this.auth(merchant) });
  }

  async bulk(client, merchant, state) {
    const key = this.key('bulk');
    const rewards = Array.from({ length: 10 }, (_, i) => {
      const k = `${key}-${i}`;
      return i % 2 === 0
        ? { type: 'FIXED', utid: this.catalog.fixed.utid, valueCents: this.catalog.fixed.valueCents, externalId: k, recipient: { email: `${k}@chaos.test`, firstName: 'Bulk' } }
        : { type: 'CHOICE', valueCents: 2500, externalId: k, recipient: { email: `${k}@chaos.test`, firstName: 'Bulk' } };
    });
    const { res, outcome } = await client.call('bulk', 'POST', '/v1/rewards/bulk', { body: { rewards }, headers: this.auth(merchant, { 'idempotency-key': key }) });
    rewards.forEach((r) => this.knowledge.createKeys.set(r.externalId, this.knowledge.createKeys.get(r.externalId) || { accountId: merchant.accountId, rewardIds: new Set() }));
    if (outcome !== 'ok') return;
    for (const result of res.body.results) {
      if (result.ok) {
        this.knowledge.sawReward(rewards[result.index].externalId, merchant.accountId, result.rewardId);
        state.recent.push(result.rewardId);
      }
    }
    while (state.recent.length > 50) state.recent.shift();
  }

  async read(client, merchant, state) {
    if (state.recent.length > 0 && Math.random() < 0.6) {
      await client.call('read', 'GET', `/v1/rewards/${randomItem(state.recent)}`, { headers: this.auth(merchant) });
    } else {
      await client.call('read', 'GET', '/v1/wallet', { headers: this.auth(merchant) });
    }
  }
}

/** The catalog items the workload uses, from the merchant API. */
async function loadCatalog(api, merchant) {
  const res = await request(`${api}/v1/catalog?currency=USD`, { headers: { authorization: `Bearer ${merchant.key}` } });
  if (res.status !== 200) throw new Error(`catalog: ${res.status} ${JSON.stringify(res.body)}`);
  const items = res.body.brands.flatMap((b) => b.items.map((i) => ({ ...i, brandKey: b.brandKey }))).filter((i) => i.currencyCode === 'USD');
  const fixed = items.find((i) => i.brandKey !== 'test-failure' && i.valueType === 'FIXED_VALUE');
  const failingItem = items.find((i) => i.brandKey === 'test-failure');
  const variable = items.find((i) => i.brandKey !== 'test-failure' && i.valueType === 'VARIABLE_VALUE' && i.minValue <= 10 && i.maxValue >= 30);
  if (!fixed || !failingItem || !variable) throw new Error('the sandbox catalog lacks a FIXED, a VARIABLE or a test-failure USD item');
  const cents = (i) => Math.round((i.valueType === 'FIXED_VALUE' ? i.faceValue : Math.max(i.minValue, 10)) * 100);
  return {
    fixed: { utid: fixed.utid, valueCents: cents(fixed) },
    failing: { utid: failingItem.utid, valueCents: cents(failingItem) },
    variable: { utid: variable.utid, minCents: Math.max(Math.round(variable.minValue * 100), 500) },
  };
}

module.exports = { Workload, loadCatalog, RETRYABLE };
