import { execFileSync, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, ROOT } from '../support/processes';
import { isolatedDatabase, SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { ReceivedWebhook, WebhookReceiver } from '../support/webhook-receiver';
// Plain JavaScript, preloaded into spawned Node processes (docs/operations.md, "Tests are hermetic").
const outboundGuard = require('../support/outbound-guard') as { childEnv(owner: string | undefined): Record<string, string> };

/**
 * The verification snippets of docs/webhook-signatures/, each run as its own runtime runs it, against
 * deliveries the service really signed and sent to a receiver: they accept those, and refuse a
 * tampered body, a wrong secret and a stale timestamp. A runtime that is missing fails the test, with
 * what to install: CI must run every snippet, never skip one.
 */
const SNIPPETS = join(ROOT, 'docs', 'webhook-signatures');

interface Delivery {
  timestamp: string;
  signature: string;
  body: Buffer;
}

interface Snippet {
  name: string;
  /** What a machine needs to run it, for the failure message. */
  install: string;
  command: string;
  args: string[];
}

describe('webhook signature snippets (docs/webhook-signatures)', () => {
  let t: TestApp;
  let worker: TestWorker;
  let receiver: WebhookReceiver;
  let merchant: SeededMerchant;
  /** The endpoint's first secret, and the one a rotation gave it (the first stays valid for an hour). */
  let original: string;
  let current: string;
  let delivery: Delivery;
  let rotated: Delivery;
  let javaClasses: string;

  /** Sends a reward whose externalId holds non-ASCII text and returns its signed reward.created delivery. */
  async function deliveryOf(externalId: string): Promise<Delivery> {
    const sent = await t.api.as(merchant.key).post('/v1/rewards', {
      type: 'CHOICE',
      valueCents: 1000,
      recipient: { email: 'zoe@example.test', firstName: 'Zoë' },
      externalId,
    });
    expect(sent.status).toBe(201);
    const received: ReceivedWebhook = await eventually(async () => receiver.at('/hooks').find((r) => r.json?.data?.externalId === externalId));
    return {
      timestamp: String(received.headers['x-webhook-timestamp']),
      signature: String(received.headers['x-webhook-signature']),
      body: Buffer.from(received.body, 'utf8'),
    };
  }

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await startTestApp({ env: await isolatedDatabase() });
    worker = await startTestWorker(t);
    merchant = await seedMerchant(t);
    const api = t.api.as(merchant.key);
    expect((await api.post('/v1/topups', { amountCents: 10_000 })).status).toBe(201);
    const endpoint = await api.post('/v1/webhook-endpoints', { url: receiver.url('/hooks'), events: ['reward.created'] });
    expect(endpoint.status).toBe(201);
    original = endpoint.body.secret;
    delivery = await deliveryOf('commande-n°1-✓');
    // A rotation with a grace period: the next delivery is signed with both secrets, `v1=<new> v1=<old>`.
    const rotation = await api.post(`/v1/webhook-endpoints/${endpoint.body.webhookEndpoint.id}/rotate-secret`, { keepPreviousForSeconds: 3600 });
    expect(rotation.status).toBe(200);
    current = rotation.body.secret;
    rotated = await deliveryOf('commande-n°2-✓');
    expect(rotated.signature.split(' ')).toHaveLength(2);

    javaClasses = mkdtempSync(join(tmpdir(), 'verify-webhook-java-'));
    runOrExplain('javac', ['-d', javaClasses, join(SNIPPETS, 'VerifyWebhook.java')], 'a JDK (apt-get install default-jdk-headless)');
  }, 60_000);
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await receiver?.close();
    if (javaClasses) rmSync(javaClasses, { recursive: true, force: true });
  });

  /** Runs a command, failing loudly (not skipping) when the program is not installed. */
  function runOrExplain(command: string, args: string[], install: string): void {
    try {
      execFileSync(command, args, { stdio: 'pipe' });
    } catch (error) {
      const e = error as NodeJS.ErrnoException & { stderr?: Buffer };
      if (e.code === 'ENOENT') throw new Error(`${command} is not installed: CI needs ${install} to check the webhook snippets`);
      throw new Error(`${command} ${args.join(' ')} failed: ${e.stderr?.toString() ?? e.message}`);
    }
  }

  const snippets = (): Snippet[] => [
    { name: 'Node.js', install: 'Node.js', command: process.execPath, args: [join(SNIPPETS, 'verify-webhook.mjs')] },
    { name: 'Python', install: 'python3', command: 'python3', args: [join(SNIPPETS, 'verify_webhook.py')] },
    { name: 'Java', install: 'a JDK (apt-get install default-jdk-headless)', command: 'java', args: ['-cp', javaClasses, 'VerifyWebhook'] },
    { name: 'Perl', install: 'perl', command: 'perl', args: [join(SNIPPETS, 'verify-webhook.pl')] },
    { name: 'shell and OpenSSL', install: 'openssl', command: 'sh', args: [join(SNIPPETS, 'verify-webhook.sh')] },
  ];

  /** What the snippet prints and its exit code, for one delivery and one secret. */
  function verify(snippet: Snippet, candidate: Delivery, withSecret: string): { output: string; code: number | null } {
    const result = spawnSync(snippet.command, [...snippet.args, candidate.timestamp, candidate.signature], {
      input: candidate.body,
      env: { PATH: process.env.PATH!, WEBHOOK_SECRET: withSecret, ...outboundGuard.childEnv(process.env.OUTBOUND_GUARD_OWNER) },
      timeout: 30_000,
    });
    if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
      throw new Error(`${snippet.command} is not installed: CI needs ${snippet.install} to check the ${snippet.name} webhook snippet`);
    }
    // A snippet may refuse from the headers alone (a stale timestamp) and exit before reading the body:
    // the unread input is then a broken pipe, not a failure of the snippet.
    if (result.error && (result.error as NodeJS.ErrnoException).code !== 'EPIPE') throw result.error;
    const stderr = result.stderr.toString().trim();
    return { output: `${result.stdout.toString().trim()}${stderr ? ` (stderr: ${stderr})` : ''}`, code: result.status };
  }

  const ACCEPTED = { output: 'verified', code: 0 };
  const REFUSED = { output: 'rejected', code: 1 };

  describe.each(['Node.js', 'Python', 'Java', 'Perl', 'shell and OpenSSL'])('%s', (name) => {
    const snippet = () => snippets().find((s) => s.name === name)!;

    it('accepts a real delivery, its body holding non-ASCII text', () => {
      expect(delivery.body.toString('utf8')).toContain('n°1-✓');
      expect(verify(snippet(), delivery, original)).toEqual(ACCEPTED);
    });

    it('refuses the same delivery with one byte of its body changed', () => {
      const tampered = Buffer.from(delivery.body);
      const at = tampered.indexOf('"valueCents":1000');
      expect(at).toBeGreaterThan(0);
      tampered.write('"valueCents":9000', at);
      expect(verify(snippet(), { ...delivery, body: tampered }, original)).toEqual(REFUSED);
    });

    it('refuses it with another secret', () => {
      expect(verify(snippet(), delivery, `whsec_${'x'.repeat(43)}`)).toEqual(REFUSED);
    });

    it('during a rotation, accepts the delivery signed twice with the new secret and with the old one', () => {
      expect(verify(snippet(), rotated, current)).toEqual(ACCEPTED);
      expect(verify(snippet(), rotated, original)).toEqual(ACCEPTED);
    });

    it('refuses a correctly signed delivery whose timestamp is more than 300 s old', () => {
      const stale = String(Math.floor(Date.now() / 1000) - 301);
      const signature = `v1=${createHmac('sha256', current).update(`${stale}.`).update(rotated.body).digest('hex')}`;
      expect(verify(snippet(), { timestamp: stale, signature, body: rotated.body }, current)).toEqual(REFUSED);
      // The same signing a moment ago passes: it is the age that is refused.
      const fresh = String(Math.floor(Date.now() / 1000) - 5);
      const freshSignature = `v1=${createHmac('sha256', current).update(`${fresh}.`).update(rotated.body).digest('hex')}`;
      expect(verify(snippet(), { timestamp: fresh, signature: freshSignature, body: rotated.body }, current)).toEqual(ACCEPTED);
    });
  });
});
