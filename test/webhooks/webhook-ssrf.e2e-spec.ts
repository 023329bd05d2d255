import { createServer, Server, Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { WEBHOOK_DNS_RESOLVER } from '@app/webhooks';
import { FakeDns } from '../support/fake-dns';
import { eventually } from '../support/processes';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';

/** As in production: WEBHOOK_ALLOW_PRIVATE_TARGETS=false. */
describe('webhook SSRF guard', () => {
  let t: TestApp;
  let worker: TestWorker;
  let merchant: SeededMerchant;
  const dns = new FakeDns();

  beforeAll(async () => {
    t = await startTestApp({
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_MAX_ATTEMPTS: '2' },
      overrides: [{ provide: WEBHOOK_DNS_RESOLVER, useValue: dns }],
    });
    worker = await startTestWorker(t);
    merchant = await seedMerchant(t);
  });
  afterAll(async () => {
    await worker?.close();
    await t.close();
  });

  const create = (url: string, as = merchant) => t.api.as(as.key).post('/v1/webhook-endpoints', { url, events: [] });

  it('refuses plain http', async () => {
    dns.set('public.example.test', '93.184.215.14');
    const res = await create('http://public.example.test/hook');
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([{ path: 'url', message: expect.stringContaining('https') }]);
  });

  it.each([
    ['private.example.test', ['10.0.0.5']],
    ['loopback.example.test', ['127.0.0.1']],
    ['metadata.example.test', ['169.254.169.254']],
    ['cgnat.example.test', ['100.64.1.1']],
    ['mapped.example.test', ['::ffff:127.0.0.1']],
    ['ula.example.test', ['fd00::1']],
    // One private address among public ones is enough to refuse: the connection could go to any of them.
    ['mixed.example.test', ['93.184.215.14', '2606:2800:220:1::1', '192.168.0.10']],
  ])('refuses https://%s resolving to %j', async (host, addresses) => {
    dns.set(host, ...addresses);
    const res = await create(`https://${host}/hook`);
    expect(res.status).toBe(400);
    // The answer does not say what the host resolves to (that goes to the log only).
    expect(res.body.issues[0]).toEqual({ path: 'url', message: 'URL is not allowed (private, loopback or unresolvable address)' });
    for (const address of addresses) expect(res.text).not.toContain(address);
  });

  it.each([
    'https://127.0.0.1/hook',
    'https://2130706433/hook',
    'https://0x7f000001/hook',
    'https://0177.0.0.1/hook',
    'https://127.1/hook',
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:a9fe:a9fe]/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://0.0.0.0/hook',
    'https://[fe80::1]/hook',
    'https://localhost/hook',
    'https://api.localhost/hook',
  ])('refuses the literal target %s', async (url) => {
    const res = await create(url);
    expect(res.status).toBe(400);
    expect(res.body.issues[0].path).toBe('url');
  });

  it('refuses a name that does not resolve', async () => {
    const res = await create('https://nowhere.example.test/hook');
    expect(res.status).toBe(400);
    expect(res.body.issues[0].message).toBe('URL is not allowed (private, loopback or unresolvable address)');
  });

  it('accepts https to a host whose every address is public', async () => {
    dns.set('fine.example.test', '93.184.215.14', '2606:2800:220:1::1');
    expect((await create('https://fine.example.test/hook')).status).toBe(201);
  });

  it('a PATCH to a private URL is refused like a create', async () => {
    dns.set('ok.example.test', '93.184.215.14');
    const { body } = await create('https://ok.example.test/hook');
    const res = await t.api.as(merchant.key).patch(`/v1/webhook-endpoints/${body.webhookEndpoint.id}`, { url: 'https://127.0.0.1/x' });
    expect(res.status).toBe(400);
  });

  describe('DNS rebinding', () => {
    let listener: Server;
    let connections = 0;
    beforeAll(async () => {
      listener = createServer((socket: Socket) => {
        connections++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

    it('a host that was public at creation but private at delivery fails the attempt without connecting', async () => {
      // A merchant of its own: the endpoints the tests above accepted resolve to a public address,
      // and an event of their merchant would be delivered there (tests never leave the machine).
      const rebound = await seedMerchant(t);
      const port = (listener.address() as AddressInfo).port;
      const host = 'rebind.example.test';
      dns.set(host, '93.184.215.14');
      const created = await create(`https://${host}:${port}/hook`, rebound);
      expect(created.status).toBe(201);
      dns.set(host, '127.0.0.1');

      await t.api.as(rebound.key).post('/v1/topups', { amountCents: 1000 });
      const [delivery] = await eventually(async () => {
        const res = await t.api.as(rebound.key).get(`/v1/webhook-endpoints/${created.body.webhookEndpoint.id}/deliveries`);
        return res.body.deliveries[0]?.status === 'FAILED' && res.body.deliveries;
      });
      expect(delivery).toMatchObject({ attempts: 2, responseStatus: null, lastError: 'refused before connecting: URL is not allowed (private, loopback or unresolvable address)' });
      expect(connections).toBe(0);
    });
  });
});
