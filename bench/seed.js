'use strict';
// The bench's merchants: created with the operator CLI (account and API key), funded through the
// API, and the FIXED catalog item the end-to-end phase sends.
const { MERCHANTS, STAMP, log } = require('./config');
const { cli, api } = require('./service');

/** MERCHANTS + 1 merchants (the last one is the webhook fan-out's), each funded with two top-ups. */
async function seedMerchants(count = MERCHANTS + 1) {
  log(`seeding ${count} merchants`);
  const merchants = new Array(count);
  let next = 0;
  await Promise.all(
    [0, 1, 2, 3].map(async () => {
      while (next < merchants.length) {
        const i = next++;
        const { accountId } = await cli(['merchant:create', '--name', `Bench ${i}`, '--email', `bench${i}-${STAMP}@example.test`, '--password', 'bench password 123']);
        const { key } = await cli(['api-key:create', '--account', accountId, '--scopes', 'read,write']);
        merchants[i] = { accountId, key };
      }
    }),
  );
  for (const m of merchants) {
    for (let t = 0; t < 2; t++) {
      const res = await api(m.key, 'POST', '/v1/topups', { amountCents: 100_000_000 });
      if (res.status !== 201) throw new Error(`top-up failed: ${res.status} ${JSON.stringify(res.body)}`);
    }
  }
  return { merchants };
}

/** A FIXED_VALUE USD item of the catalog (not the brand that fails on purpose). */
async function findFixedItem(merchant) {
  const catalog = await api(merchant.key, 'GET', '/v1/catalog?currency=USD');
  const items = catalog.body.brands.flatMap((b) => b.items.map((i) => ({ ...i, brandKey: b.brandKey })));
  const fixed = items.find((i) => i.brandKey !== 'test-failure' && i.valueType === 'FIXED_VALUE');
  if (!fixed) throw new Error('no FIXED_VALUE USD item in the catalog');
  return { utid: fixed.utid, brandKey: fixed.brandKey, valueCents: Math.round(fixed.faceValue * 100) };
}

module.exports = { seedMerchants, findFixedItem };
