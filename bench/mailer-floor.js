#!/usr/bin/env node
'use strict';
// `node bench/mailer-floor.js`: what one reward e-mail costs the sending thread in the mail library
// alone, with no database, queue or link token around it (issue 33, point 3; bench/ANALYSIS.md).
//
// The service's own Mailer (built, dist/) and renderRewardEmail send MAILER_FLOOR_COUNT messages, at most
// 4 at once as the worker does, to an SMTP sink (smtp-server) in a child process, so the sink's CPU is
// not counted. The figure is this thread's CPU (/proc/thread-self/schedstat, ns on a CPU) per message,
// from the MAILER_FLOOR_WARM-th message to the last (JIT warm-up left out), in two passes:
//   render + send: renderRewardEmail then Mailer.send, what the worker does between its reads and writes;
//   send only:     the same message rendered once beforehand, Mailer.send alone.
// Each pass runs MAILER_FLOOR_ROUNDS times; every figure is printed and the median of each pass.
const { fork } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const env = process.env;

if (process.argv[2] === '--sink') {
  // The child: accepts every message, reports its port, then counts.
  const { SMTPServer } = require('smtp-server');
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => callback());
    },
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.server.address().port }));
  process.on('disconnect', () => server.close(() => process.exit(0)));
  return;
}

const COUNT = Number(env.MAILER_FLOOR_COUNT || 3000);
const WARM = Math.min(Number(env.MAILER_FLOOR_WARM || 500), COUNT - 1);
const ROUNDS = Number(env.MAILER_FLOOR_ROUNDS || 3);
const AT_ONCE = 4;

/** This thread's CPU so far, in ns (Linux: the first field of schedstat). */
function threadCpuNs() {
  return Number(fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** A CHOICE reward's e-mail as the worker renders it (the values are a typical send's). */
function emailInput(renderRewardEmail, n) {
  return renderRewardEmail({
    senderName: 'Acme Rewards',
    logoUrl: 'https://cdn.example.com/acme/logo.png',
    brandColor: '#1A73E8',
    recipientFirstName: 'Jordan',
    message: 'Thank you for taking part in our customer survey. Enjoy your reward!',
    valueCents: 2500 + (n % 7),
    currency: 'USD',
    type: 'CHOICE',
    brandName: null,
    link: `https://rewards.example.com/r/${'x'.repeat(40)}${n}`,
    expiresAt: new Date(Date.UTC(2027, 5, 30)),
    language: null,
  });
}

async function pass(mailer, renderRewardEmail, render) {
  const fixed = emailInput(renderRewardEmail, 0);
  let next = 0;
  let startNs = 0;
  async function lane() {
    while (next < COUNT) {
      const n = next++;
      if (n === WARM) startNs = threadCpuNs();
      const email = render ? emailInput(renderRewardEmail, n) : fixed;
      await mailer.send({ fromName: 'Acme Rewards', to: `recipient${n}@example.com`, reference: String(n), ...email });
    }
  }
  await Promise.all(Array.from({ length: AT_ONCE }, lane));
  return (threadCpuNs() - startNs) / (COUNT - WARM) / 1e6;
}

async function main() {
  const dist = path.join(ROOT, 'dist/libs/mail/src');
  if (!fs.existsSync(path.join(dist, 'mailer.service.js'))) throw new Error('no build: run `node scripts/build-if-needed.js` first');
  const { Mailer, renderRewardEmail } = require(dist);
  const sink = fork(path.join(__dirname, 'mailer-floor.js'), ['--sink'], { stdio: 'inherit' });
  const port = await new Promise((resolve) => sink.once('message', (m) => resolve(m.port)));
  const mailer = new Mailer({ smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: 'Rewards <rewards@example.com>' });
  const figures = { 'render + send': [], 'send only': [] };
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      figures['render + send'].push(await pass(mailer, renderRewardEmail, true));
      figures['send only'].push(await pass(mailer, renderRewardEmail, false));
    }
  } finally {
    mailer.onApplicationShutdown();
    sink.disconnect();
  }
  process.stdout.write(`mailer floor: ${COUNT - WARM} messages per pass after ${WARM} warm, ${AT_ONCE} at once, ms of this thread's CPU per message\n`);
  for (const [name, values] of Object.entries(figures)) {
    process.stdout.write(`  ${name.padEnd(14)} ${values.map((v) => v.toFixed(3)).join(' / ')}  median ${median(values).toFixed(3)}\n`);
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
