import type { CreateRewardDto } from '../../libs/rewards/src/dto/create-reward.dto';
import { RewardLifecycle } from '../../libs/rewards/src/lifecycle/reward-lifecycle.service';
import { pendingCard, PlannedReward, RewardDrafts } from '../../libs/rewards/src/reward-drafts';
import { SendStatements } from '../../libs/rewards/src/send-statements';
import { RewardsContext, startRewardsContext } from '../support/rewards-context';
import { expectGolden } from '../support/sql-golden';

/**
 * The statements of the hot path (a single send, a bulk send, a pick) are committed as rendered
 * SQL in libs/rewards/sql (docs/testing.md, Golden SQL), so a change to what they write shows in
 * review as SQL. This renders them with fixed inputs, on the rewards module alone (no HTTP app,
 * nothing written), and fails when they differ from the committed files. The lifecycle's
 * statements are in lifecycle-sql.e2e-spec.ts.
 */
const recipient = { email: 'ada@example.test', firstName: 'Ada' };
const item = { utid: 'U-1', rewardName: 'Gift card', brandKey: 'acme', brandName: 'Acme', brandImageUrl: null };
const fixed: PlannedReward = { dto: { type: 'FIXED', valueCents: 2500, utid: 'U-1', recipient } as CreateRewardDto, item, currency: 'USD', revision: 7, fx: null };
const choice: PlannedReward = { dto: { type: 'CHOICE', valueCents: 5000, recipient } as CreateRewardDto, item: null, currency: 'USD', revision: 7, fx: null };
/** A EUR CHOICE reward funded from the USD wallet (`fundingCurrency`): converted and held in one statement. */
const funded: PlannedReward = {
  dto: { type: 'CHOICE', valueCents: 5000, currency: 'EUR', fundingCurrency: 'USD', recipient } as CreateRewardDto,
  item: null,
  currency: 'EUR',
  revision: 7,
  fx: { fundingCurrency: 'USD', rate: '0.92', fundedCents: 5435 },
};
const gbp: PlannedReward = { ...fixed, currency: 'GBP' };

describe('golden SQL of the send and pick statements', () => {
  let t: RewardsContext;
  let drafts: RewardDrafts;
  let statements: SendStatements;

  beforeAll(async () => {
    t = await startRewardsContext({ ownDatabase: false });
    drafts = t.app.get(RewardDrafts);
    statements = t.app.get(SendStatements);
  });
  afterAll(() => t.close());

  const prepare = (source: 'api' | 'bulk', planned: PlannedReward[]) => drafts.prepare({ accountId: 'acct_golden', source, planned, reminds: true });

  it('single-send.sql: the one statement of POST /v1/rewards', () => {
    const withKey = statements.single({
      prepared: prepare('api', [fixed]),
      catalogRevision: 7,
      idempotency: { input: { scope: 'acct_golden', key: 'k-1', operation: 'rewards.create', requestHash: 'h' }, response: { status: 201, body: {} } },
    });
    const withoutKey = statements.single({ prepared: prepare('api', [choice]), catalogRevision: 7, idempotency: null });
    const converted = statements.single({ prepared: prepare('api', [funded]), catalogRevision: 7, idempotency: null });
    expectGolden('single-send.sql', [
      ['A FIXED reward with an Idempotency-Key', withKey.sql],
      ['A CHOICE reward without one', withoutKey.sql],
      ['A CHOICE reward in EUR funded from the USD wallet (fundingCurrency), without a key', converted.sql],
    ]);
  });

  it('bulk-send.sql: the writes of POST /v1/rewards/bulk', () => {
    expectGolden('bulk-send.sql', [
      ['Two rewards, one FIXED and one CHOICE', statements.bulk(prepare('bulk', [fixed, choice])).sql],
      ['Three rewards in three currencies, one funded from another wallet', statements.bulk(prepare('bulk', [fixed, gbp, funded])).sql],
    ]);
  });

  it('pick.sql: the writes of a pick on the redemption page', () => {
    const lifecycle = t.app.get(RewardLifecycle);
    const first = () => prepare('api', [choice]).rewards[0].view.reward;
    const opened = Object.assign(first(), { status: 'OPENED' as const });
    const again = Object.assign(first(), { status: 'PARTIALLY_REDEEMED' as const });
    expectGolden('pick.sql', [
      ['The first pick (the reward becomes PARTIALLY_REDEEMED)', lifecycle.pickStatement(opened, pendingCard(opened, item, 1000, new Date())).text('SELECT 1')],
      ['A later pick', lifecycle.pickStatement(again, pendingCard(again, item, 1000, new Date())).text('SELECT 1')],
    ]);
  });
});
