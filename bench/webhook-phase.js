'use strict';
// Webhook fan-out: a local receiver answers 200 at once on WEBHOOK_ENDPOINTS endpoints of one merchant
// while rewards are created on it; measures deliveries/s and the lag from event commit to receipt.
const http = require('node:http');
const { DURATION, WEBHOOK_ENDPOINTS, sleep } = require('./config');
const { cannon, summarise, choiceBody, createRequests } = require('./load');
const { measured } = require('./measure');
const { round, stats } = require('./numbers');
const { api } = require('./service');

async function webhookPhase(ctx, merchant) {
  const { db } = ctx;
  const receipts = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      res.writeHead(200).end();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        receipts.push({ at, createdAt: Date.parse(body.createdAt), id: body.id, endpoint: req.url });
      } catch {
        receipts.push({ at, createdAt: NaN });
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;
  for (let i = 0; i < WEBHOOK_ENDPOINTS; i++) {
    const res = await api(merchant.key, 'POST', '/v1/webhook-endpoints', { url: `http://127.0.0.1:${port}/hook/${i}`, events: [] });
    if (res.status !== 201) throw new Error(`webhook endpoint: ${res.status} ${JSON.stringify(res.body)}`);
  }
  await measured(ctx, 'webhook_fanout', async () => {
    // events come from reward creations (reward.created + reward.sent) on one merchant with N endpoints
    const load = summarise(await cannon({ duration: DURATION, requests: createRequests([merchant], choiceBody) }));
    const deadline = Date.now() + 120_000;
    let expected = 0;
    while (Date.now() < deadline) {
      expected = (await db.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE account_id = $1', [merchant.accountId])).rows[0].n;
      const undispatched = (await db.query('SELECT count(*)::int AS n FROM events WHERE account_id = $1 AND dispatched_at IS NULL', [merchant.accountId])).rows[0].n;
      if (undispatched === 0 && receipts.length >= expected) break;
      await sleep(250);
    }
    const first = Math.min(...receipts.map((r) => r.at));
    const last = Math.max(...receipts.map((r) => r.at));
    const firstEvent = Math.min(...receipts.map((r) => r.createdAt));
    return {
      endpoints: WEBHOOK_ENDPOINTS,
      creates: load,
      deliveries: receipts.length,
      expectedDeliveries: expected,
      duplicates: receipts.length - new Set(receipts.map((r) => `${r.endpoint} ${r.id}`)).size,
      deliveriesPerS: round(receipts.length / ((last - first) / 1000), 0),
      deliveriesPerSFromFirstEvent: round(receipts.length / ((last - firstEvent) / 1000), 0),
      lagMs: stats(receipts.map((r) => r.at - r.createdAt).filter((x) => !Number.isNaN(x))),
      drainS: round((last - first) / 1000, 2),
    };
  });
  server.close();
}

module.exports = { webhookPhase };
