import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { Sweepers } from '@app/core';
import { REWARD_JOB_SWEEP } from '@app/rewards';
import { PrivateRedis } from '../support/private-redis';
import { eventually } from '../support/processes';
import { choiceReward, fund, recipient } from '../support/rewards';
import { SmtpSink } from '../support/smtp-sink';
import { SeededMerchant, seedMerchant, startTestApp, startTestWorker, TestApp, TestWorker } from '../support/test-app';
import { TcpProxy } from '../support/tcp-proxy';

/**
 * Redis failing over behind one address (docs/scaling.md, Redis failover): a primary and its replica
 * (two redis-servers of this suite's own), the service reaching them through one address (a TCP
 * forwarder, as a virtual IP or a managed endpoint). The replica is promoted, the old primary demoted
 * to its replica, and the address moved, leaving the connections already open at the old primary, as
 * nothing closes them: their writes are refused with READONLY until they reconnect.
 */
describe('Redis failover behind one address', () => {
  const first = new PrivateRedis();
  const second = new PrivateRedis();
  const smtp = new SmtpSink();
  let address: TcpProxy;
  let t: TestApp;
  let worker: TestWorker;
  let m: SeededMerchant;

  const admin = (redis: PrivateRedis) => new Redis(redis.port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 1 });
  const command = async (redis: PrivateRedis, ...args: string[]) => {
    const client = admin(redis);
    try {
      await client.connect();
      return await client.call(args[0], ...args.slice(1));
    } finally {
      client.disconnect();
    }
  };
  const role = async (redis: PrivateRedis) => ((await command(redis, 'ROLE')) as unknown[])[0];
  const inSync = async (primary: PrivateRedis, replica: PrivateRedis) => {
    const offset = (info: string) => Number(/master_repl_offset:(\d+)/.exec(info)?.[1]);
    const link = (await command(replica, 'INFO', 'replication')) as string;
    return link.includes('master_link_status:up') && offset((await command(primary, 'INFO', 'replication')) as string) === offset(link);
  };

  beforeAll(async () => {
    await first.start();
    await second.start();
    await command(second, 'REPLICAOF', '127.0.0.1', String(first.port));
    address = await new TcpProxy('127.0.0.1', first.port).start();
    t = await startTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${address.port}`, SMTP_URL: await smtp.start(), RATE_LIMIT_PER_MINUTE: '1000' } });
    worker = await startTestWorker(t);
    m = await seedMerchant(t);
    await fund(t, m, 100_000);
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await address?.cut();
    await first.dispose();
    await second.dispose();
    await smtp.stop();
  });

  const send = async () => {
    const to = recipient();
    const res = await t.api.as(m.key).post('/v1/rewards', choiceReward(1_000, { recipient: to }));
    expect(res.status).toBe(201);
    return { email: to.email, rewardId: res.body.reward.id as string };
  };
  const delivered = (sent: { email: string }) => smtp.waitFor((mail) => mail.to.includes(sent.email), 20_000);
  const fallbacks = async () => Number(/^rate_limit_fallback_total (\d+)/m.exec(await (await fetch(`${t.baseUrl}/metrics`)).text())?.[1] ?? 0);

  it('after the replica is promoted and the address moved, sends are queued and e-mailed through the new primary, and rate limits are counted there', async () => {
    await delivered(await send());
    expect(await role(first)).toBe('master');
    await eventually(() => inSync(first, second));

    // The failover: the replica promoted, the old primary made its replica, the address moved.
    await command(second, 'REPLICAOF', 'NO', 'ONE');
    await command(first, 'REPLICAOF', '127.0.0.1', String(second.port));
    address.retarget(second.port);
    expect([await role(first), await role(second)]).toEqual(['slave', 'master']);

    // A connection still open at the old primary has its first write refused (READONLY) and reconnects, through
    // the address, to the new primary. The send is answered either way: its enqueue follows the commit.
    const atSwitch = await send();
    // The next sends' jobs are queued at the new primary and their e-mails go out at once.
    await delivered(await send());
    await delivered(await send());
    // A job whose enqueue met the old primary is found by the sweeper (its row is durable), as after an outage:
    // its row is made older than the sweeper's 30 s on the database's clock rather than waited for.
    await t.app.get(DataSource).query(`UPDATE mail_jobs SET created_at = created_at - interval '1 minute' WHERE reward_id = $1`, [atSwitch.rewardId]);
    await worker.app.get(Sweepers).run(REWARD_JOB_SWEEP);
    await delivered(atSwitch);
    // The rate-limit counters live at the new primary, not in the process's fallback: the credential's counter,
    // cleared there, is counted again there by the next request.
    const counters = admin(second);
    await counters.connect();
    try {
      const counterKeys = () => counters.keys(`${t.config.queuePrefix}:ratelimit:credential:*`);
      await counters.del(...(await counterKeys()));
      expect(await counterKeys()).toEqual([]);
      const before = await fallbacks();
      const res = await t.api.as(m.key).get('/v1/account');
      expect(res.status).toBe(200);
      expect(await fallbacks()).toBe(before);
      expect((await counterKeys()).length).toBe(1);
    } finally {
      counters.disconnect();
    }
    const ready = await fetch(`${t.baseUrl}/health/ready`);
    expect(await ready.json()).toMatchObject({ status: 'ok', checks: { redis: 'ok' } });
  }, 90_000);
});
