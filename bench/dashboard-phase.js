'use strict';
// The dashboard's Rewards page on a merchant with a long history: 100,000 rewards seeded in SQL,
// the page of the 100 newest loaded in Debian's Chromium, timed from navigation to the last row on
// screen; and the JavaScript the first load ships, gzipped.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { gzipSync } = require('node:zlib');
const { chromium } = require('playwright-core');
const { BASE, ROOT, STAMP, log } = require('./config');
const { cli } = require('./service');
const { round, stats } = require('./numbers');

const SEEDED_REWARDS = Number(process.env.BENCH_DASHBOARD_REWARDS || 100_000);
const LOADS = 7;
const PASSWORD = 'bench dashboard password';

/** Closed rewards (no value held, so no ledger rows needed), newest first by seq, as a long-lived account has. */
async function seedHistory(db, accountId) {
  log(`dashboard: seeding ${SEEDED_REWARDS} rewards in SQL`);
  await db.query(
    `INSERT INTO rewards (id, account_id, type, status, face_value_cents, remaining_value_cents, currency,
                          recipient_email, recipient_first_name, source, external_id, created_at)
     SELECT 'rw_bench' || lpad(g::text, 14, '0'), $1, 'CHOICE', 'CANCELED', 5000, 0, 'USD',
            'recipient' || g || '@example.test', 'Recipient', 'api', 'order-' || g, now() - make_interval(secs => $2 - g)
       FROM generate_series(1, $2::int) AS g`,
    [accountId, SEEDED_REWARDS],
  );
  await db.query('ANALYZE rewards');
}

/** What the browser downloads of JavaScript for the first load: the scripts the shell names, gzipped. */
function shippedJavaScript() {
  const shell = readFileSync(join(ROOT, 'apps/dashboard/dist/index.html'), 'utf8');
  const scripts = [...shell.matchAll(/src="\/dashboard\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
  const raw = scripts.map((s) => readFileSync(join(ROOT, 'apps/dashboard/dist', s)));
  return { files: scripts.length, bytes: raw.reduce((n, b) => n + b.length, 0), gzipBytes: raw.reduce((n, b) => n + gzipSync(b).length, 0) };
}

async function signIn(email) {
  const res = await fetch(`${BASE}/dashboard/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: BASE },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  if (res.status !== 201) throw new Error(`dashboard sign-in failed: ${res.status} ${await res.text()}`);
  const [name, value] = res.headers.get('set-cookie').split(';')[0].split('=');
  return { name, value };
}

async function dashboardPhase(ctx) {
  const email = `bench-dashboard-${STAMP}@example.test`;
  const { accountId } = await cli(['merchant:create', '--name', 'Bench dashboard', '--email', email, '--password', PASSWORD]);
  await seedHistory(ctx.db, accountId);
  const cookie = await signIn(email);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const cold = [];
  const warm = [];
  try {
    for (let i = 0; i < LOADS; i++) {
      // A fresh context each time: nothing cached, as on a first visit (the session cookie only).
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await context.addCookies([{ ...cookie, url: BASE }]);
      const page = await context.newPage();
      for (const sample of [cold, warm]) {
        const started = Date.now();
        await page.goto(`${BASE}/dashboard/rewards`);
        await page.locator('tbody tr').nth(99).waitFor({ state: 'visible', timeout: 30_000 });
        sample.push(Date.now() - started);
      }
      await context.close();
    }
  } finally {
    await browser.close();
  }
  const js = shippedJavaScript();
  ctx.results.phases.dashboard_rewards_page = {
    seededRewards: SEEDED_REWARDS,
    coldMs: stats(cold),
    warmMs: stats(warm),
    javascript: { ...js, gzipKb: round(js.gzipBytes / 1024, 1) },
  };
  log(`dashboard: ${JSON.stringify(ctx.results.phases.dashboard_rewards_page)}`);
}

module.exports = { dashboardPhase };
