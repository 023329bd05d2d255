#!/usr/bin/env node
// How fast `encryption:rotate` re-seals card credentials while sends go on (docs/secrets.md, Rotation).
//
//   npm run build && node scripts/measure-rotation.js [--cards 100000] [--senders 4]
//
// On a scratch database (created and dropped here, on the server of DATABASE_URL): N issued cards
// are seeded in SQL with credentials sealed under an "old" key, an API process runs with the ring
// "new,old" (as during a real rotation) and `--senders` loops send rewards over HTTP while the
// built CLI runs `encryption:rotate`. Prints one JSON object: cards, seconds, cards per second (the
// CLI's start-up, measured by a second run that finds nothing, taken out), and the sends made meanwhile.
'use strict';
const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { createServer } = require('node:net');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { Client } = require('pg');

const root = path.join(__dirname, '..');
const { KeyRing, newKeyRingEntry, sealContext } = require(path.join(root, 'dist/libs/core/src/crypto/key-ring.js'));

const { values: flags } = parseArgs({ options: { cards: { type: 'string', default: '100000' }, senders: { type: 'string', default: '4' } } });
const CARDS = Number(flags.cards);
const SENDERS = Number(flags.senders);

const base = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/rewards');
const dbName = `rewards_rotation_${randomBytes(4).toString('hex')}`;
const dbUrl = new URL(base);
dbUrl.pathname = `/${dbName}`;
const oldKey = newKeyRingEntry('old');
const newKey = newKeyRingEntry('new');
const env = (keys) => ({
  PATH: process.env.PATH,
  DATABASE_URL: dbUrl.toString(),
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  QUEUE_PREFIX: `rotation-${dbName}`,
  LOG_LEVEL: 'silent',
  ENCRYPTION_KEYS: keys,
});

function run(app, args, keys) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [path.join(root, 'dist/apps', app, 'src/main.js'), ...args], { cwd: root, env: env(keys) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code !== 0) reject(new Error(`${app} ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve({ out: JSON.parse(stdout), seconds });
    });
  });
}

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

async function main() {
  const cli = (...args) => run('cli', args, oldKey);
  const { out: merchant } = await cli('merchant:create', '--name', 'Rotation Co', '--email', `rotation-${dbName}@example.test`, '--password', 'a long enough password');
  const { out: apiKey } = await cli('api-key:create', '--account', merchant.accountId, '--scopes', 'read,write');

  const port = await freePort();
  const api = spawn(process.execPath, [path.join(root, 'dist/apps/api/src/main.js')], {
    cwd: root,
    // The senders are one credential: no per-credential rate limit in the way of the measurement.
    env: { ...env(`${newKey},${oldKey}`), PORT: String(port), RUN_WORKERS: 'false', RATE_LIMIT_PER_MINUTE: '1000000' },
    stdio: 'ignore',
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const call = async (method, p, body) => {
    const res = await fetch(`${baseUrl}${p}`, {
      method,
      headers: { authorization: `Bearer ${apiKey.key}`, 'content-type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const db = new Client({ connectionString: dbUrl.toString() });
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${baseUrl}/health/ready`)).ok) break;
      } catch {
        /* not yet */
      }
      if (i > 300) throw new Error('the API did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    if ((await call('POST', '/v1/topups', { amountCents: 100_000_000 })).status !== 201) throw new Error('top-up failed');
    const send = () => call('POST', '/v1/rewards', { type: 'CHOICE', valueCents: 100, recipient: { email: 'r@example.test', firstName: 'R' } });
    const { body: first } = await send();

    // N issued cards of one reward, credentials sealed under the old key as issuance seals them.
    await db.connect();
    const ring = KeyRing.fromText(oldKey);
    const seedStarted = Date.now();
    for (let done = 0; done < CARDS; done += 5000) {
      const n = Math.min(5000, CARDS - done);
      const ids = Array.from({ length: n }, () => `card_${randomBytes(16).toString('base64url').slice(0, 22)}`);
      const sealed = ids.map((id) =>
        ring.encrypt(JSON.stringify([{ label: 'Claim code', value: randomBytes(9).toString('hex'), type: 'text' }]), sealContext('reward_cards.credentials', id, merchant.accountId)),
      );
      await db.query(
        `INSERT INTO reward_cards (id, reward_id, account_id, utid, reward_name, brand_key, brand_name, amount_cents, currency, status, credentials, issued_at)
         SELECT id, $3, $4, 'U000', 'Seeded card', 'seeded', 'Seeded', 100, 'USD', 'ISSUED', sealed, now()
           FROM unnest($1::text[], $2::text[]) AS s(id, sealed)`,
        [ids, sealed, first.reward.id, merchant.accountId],
      );
    }
    const seedSeconds = (Date.now() - seedStarted) / 1000;

    let sending = true;
    const sends = { ok: 0, failed: 0, maxMs: 0, statuses: {} };
    const senders = Array.from({ length: SENDERS }, async () => {
      while (sending) {
        const started = Date.now();
        const res = await send().catch(() => ({ status: 0 }));
        sends.maxMs = Math.max(sends.maxMs, Date.now() - started);
        if (res.status === 201) sends.ok += 1;
        else {
          sends.failed += 1;
          sends.statuses[res.status] = (sends.statuses[res.status] ?? 0) + 1;
        }
      }
    });
    const rotation = await run('cli', ['encryption:rotate'], `${newKey},${oldKey}`);
    sending = false;
    await Promise.all(senders);
    const again = await run('cli', ['encryption:rotate'], `${newKey},${oldKey}`);
    const working = Math.max(0.001, rotation.seconds - again.seconds);
    const [{ left }] = (await db.query(`SELECT count(*)::int AS left FROM reward_cards WHERE credentials NOT LIKE 'v1:new:%'`)).rows;
    process.stdout.write(
      `${JSON.stringify({
        cards: CARDS,
        seededInSeconds: seedSeconds,
        reencrypted: rotation.out.reencrypted,
        secondRun: again.out.reencrypted,
        leftUnderOldKey: left,
        rotateSeconds: Number(rotation.seconds.toFixed(2)),
        cliStartSeconds: Number(again.seconds.toFixed(2)),
        cardsPerSecond: Math.round(rotation.out.reencrypted / working),
        sendsDuringRotation: sends.ok,
        sendsFailed: sends.failed,
        failedStatuses: sends.statuses,
        slowestSendMs: sends.maxMs,
      })}\n`,
    );
  } finally {
    api.kill('SIGTERM');
    await db.end().catch(() => undefined);
    const maintenance = new URL(base);
    maintenance.pathname = '/postgres';
    const admin = new Client({ connectionString: maintenance.toString() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
