'use strict';
// The faults. Each takes something away (`inject`), keeps it away for `downMs`, and brings it back
// (`restore`, which returns once the part is serving again).
const { log } = require('./util');

const FAULTS = {
  'worker-kill': {
    title: 'worker kill -9',
    downMs: 2_000,
    async inject({ cluster }) {
      cluster.workers[0].kill9();
    },
    async restore({ cluster }) {
      await cluster.workers[0].start();
    },
  },
  'api-kill': {
    title: 'API kill -9',
    downMs: 5_000,
    async inject({ cluster }) {
      cluster.apis[0].kill9();
    },
    async restore({ cluster }) {
      await cluster.apis[0].start();
    },
  },
  'redis-down': {
    title: 'Redis down 15 s, data lost',
    downMs: 15_000,
    async inject({ cluster }) {
      cluster.redis.kill9();
    },
    async restore({ cluster }) {
      await cluster.redis.start();
    },
  },
  'postgres-crash': {
    title: 'PostgreSQL crash 10 s',
    downMs: 10_000,
    async inject({ cluster }) {
      await cluster.pg.crash();
    },
    async restore({ cluster }) {
      await cluster.pg.start();
    },
  },
  'receiver-down': {
    title: 'webhook receiver down 30 s',
    downMs: 30_000,
    async inject({ receiver }) {
      await receiver.stop();
    },
    async restore({ receiver }) {
      await receiver.start(receiver.port);
    },
  },
  combined: {
    title: 'all combined',
    downMs: 15_000,
    async inject(ctx) {
      const { cluster, receiver } = ctx;
      cluster.workers[1].kill9();
      cluster.apis[1].kill9();
      cluster.redis.kill9();
      await receiver.stop();
      await cluster.pg.crash();
    },
    async restore(ctx) {
      const { cluster, receiver } = ctx;
      // The stores first: a process started without them stops at once.
      await cluster.pg.start();
      await cluster.redis.start();
      await Promise.all([cluster.apis[1].start(), cluster.workers[1].start(), receiver.start(receiver.port)]);
    },
  },
};

const LONG = ['worker-kill', 'api-kill', 'redis-down', 'postgres-crash', 'receiver-down', 'combined'];
const SHORT = ['api-kill', 'redis-down', 'postgres-crash'];

function faultList(names) {
  for (const n of names) {
    if (!FAULTS[n]) throw new Error(`unknown fault ${n}; known: ${Object.keys(FAULTS).join(', ')}`);
  }
  return names.map((name) => ({ name, ...FAULTS[name] }));
}

async function inject(fault, ctx) {
  log(`fault: ${fault.title}`);
  await fault.inject(ctx);
}

module.exports = { FAULTS, LONG, SHORT, faultList, inject };
