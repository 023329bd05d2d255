import { WebhooksWorkerModule } from '@app/webhooks';
import { AttemptRecord, AttemptRecorder } from '../../libs/webhooks/src/delivery/attempt-recorder';
import { DeliveryLeases } from '../../libs/webhooks/src/delivery/delivery-leases';
import { DeliverySweep } from '../../libs/webhooks/src/delivery/delivery-sweep';
import { startServiceContext, ServiceContext } from '../support/service-context';
import { expectGolden } from '../support/sql-golden';
import { isolatedDatabase } from '../support/test-app';

/**
 * The statements of the webhook pipeline's hot path (the claim, the lease renewal, the attempt
 * record, and the sweep that finds expired leases) are committed as rendered SQL in
 * libs/webhooks/sql, so a change to what they write shows in review as SQL. They are rendered by the
 * worker-side providers (no HTTP app) with fixed inputs; ids and values are parameters, so the text
 * depends only on the shape of the input. `npm run sql:golden` rewrites the files.
 */

const record = (overrides: Partial<AttemptRecord>): AttemptRecord => ({
  deliveryId: 'whd_golden',
  endpointId: 'we_golden',
  attempt: 1,
  startedAt: new Date('2026-01-01T00:00:00Z'),
  durationMs: 12,
  succeeded: true,
  responseStatus: 200,
  error: null,
  status: 'SUCCEEDED',
  nextAttemptAt: null,
  retryNotBefore: null,
  gone: false,
  ...overrides,
});

/** The webhook statements' golden files live beside their lib. */
const expectWebhookGolden = (file: string, variants: [string, string][]) => expectGolden(file, variants, 'libs/webhooks/sql');

describe('golden SQL of the webhook claim, lease renewal, attempt record and sweep', () => {
  let ctx: ServiceContext;

  beforeAll(async () => {
    // A database of its own, and the providers only: rendering the statements needs no queue processor,
    // relay or heartbeat running (this beforeAll, which started them, is where ioredis' "Connection is closed"
    // struck in three full runs; its cause is not known).
    ctx = await startServiceContext([WebhooksWorkerModule], { env: await isolatedDatabase(), init: false });
  });
  afterAll(() => ctx?.close());

  it('claim.sql: one claim of an endpoint’s due deliveries', () => {
    expectWebhookGolden('claim.sql', [['Up to 64 due deliveries of one endpoint', ctx.app.get(DeliveryLeases).claimStatement('we_golden', 64).text]]);
  });

  it('lease-renewal.sql: the heartbeat’s renewal of the leases a worker holds', () => {
    const held = [
      { id: 'whd_a', attempt: 1 },
      { id: 'whd_b', attempt: 3 },
    ];
    expectWebhookGolden('lease-renewal.sql', [['Two held leases', ctx.app.get(DeliveryLeases).renewalStatement(held).text]]);
  });

  it('attempt-record.sql: a group of attempt outcomes', () => {
    const recorder = ctx.app.get(AttemptRecorder);
    const group = [
      record({}),
      record({ deliveryId: 'whd_retry', succeeded: false, responseStatus: 500, error: 'HTTP 500', status: 'PENDING', nextAttemptAt: new Date('2026-01-01T00:01:00Z') }),
      record({ deliveryId: 'whd_gone', endpointId: 'we_gone', succeeded: false, responseStatus: 410, error: 'HTTP 410 Gone: endpoint paused', status: 'PENDING', gone: true }),
    ];
    expectWebhookGolden('attempt-record.sql', [['A success, a failure to retry and a 410', recorder.writeStatement(group).text]]);
  });

  it('sweep.sql: the endpoints with lost or expired-lease deliveries', () => {
    expectWebhookGolden('sweep.sql', [['Every active endpoint with such a delivery', ctx.app.get(DeliverySweep).statement().text]]);
  });
});
