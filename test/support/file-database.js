'use strict';
// A database per e2e test file (docs/testing.md, "A database per test file"). The global setup
// migrates the run's database once and never connects to it again: it is the template. Each e2e
// file gets a copy (`CREATE DATABASE … TEMPLATE`, tens of milliseconds against about a second for
// migrating), so a file's workers sweep, relay and expire only what that file wrote, and a file
// that changes the catalog or adds a trigger changes it for itself only. Plain JavaScript: the Jest
// environment (test/support/hermetic-environment.js) loads it outside the test file's sandbox.
const { randomBytes } = require('node:crypto');
const { basename } = require('node:path');
const { Client } = require('pg');

/** The run's migrated database (a URL), set by the global setup; unset under `npm run test:unit`. */
const TEMPLATE_ENV = 'TEST_TEMPLATE_DATABASE_URL';
// PostgreSQL names are at most 63 bytes; suites append suffixes of their own (isolatedDatabase's `_abcd`, `_old`).
const SLUG_MAX = 16;

function databaseName(url) {
  return decodeURIComponent(new URL(url).pathname.slice(1));
}

function maintenanceUrl(url) {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  return admin.toString();
}

async function withAdmin(url, work) {
  const client = new Client({ connectionString: maintenanceUrl(url), application_name: 'test-file-database' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A migrated database of its own, copied from the template: its URL. `label` (a test file's path)
 * goes into the name, so a database kept with KEEP_TEST_DATABASE=1 says whose it was.
 */
async function copyTemplate(label, templateUrl = process.env[TEMPLATE_ENV]) {
  if (!templateUrl) throw new Error(`${TEMPLATE_ENV} is not set: the global setup (test/support/global-setup.ts) did not run`);
  const slug = basename(label).replace(/\.(e2e-)?spec\.[jt]s$/, '').toLowerCase().replace(/[^a-z0-9]+/g, '_').slice(0, SLUG_MAX);
  const name = `${databaseName(templateUrl)}_${slug}_${randomBytes(2).toString('hex')}`;
  await withAdmin(templateUrl, async (client) => {
    // A copy fails while anything is connected to the template; nothing should be, but a session of the
    // global setup may still be closing: a few short retries.
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE "${name}" TEMPLATE "${databaseName(templateUrl)}"`);
        return;
      } catch (error) {
        if (error.code !== '55006' || attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  });
  const url = new URL(templateUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

module.exports = { TEMPLATE_ENV, copyTemplate };
