import { DataSource } from 'typeorm';
import { AccountModule, MerchantService } from '@app/account';
import { AuthModule, Principal } from '@app/auth';
import { newId, randomToken } from '@app/core';
import { RewardCatalog, RewardJobs, RewardJobsModule, RewardsModule, RewardWork } from '@app/rewards';
import { WalletLedger } from '@app/wallet';
import type { CreateRewardDto } from '../../libs/rewards/src/dto/create-reward.dto';
import { RewardSender } from '../../libs/rewards/src/reward-sender.service';
import { ServiceContext, startServiceContext } from './service-context';
import { isolatedDatabase } from './test-app';

/** RewardJobs that keeps what it is handed: a service test runs no queue, it drives the work itself. */
export class RecordedRewardJobs extends RewardJobs {
  readonly work: RewardWork[] = [];

  override enqueue(work: RewardWork): Promise<void> {
    this.work.push(work);
    return Promise.resolve();
  }
}

export interface RewardsContext extends ServiceContext {
  dataSource: DataSource;
  jobs: RecordedRewardJobs;
}

/**
 * The rewards module (sending, the lifecycle, its repositories and leases) without HTTP and without
 * the worker side: nothing runs unless the test runs it. With it the account module, whose
 * MerchantService makes the test's accounts, and the auth module every lib's controllers need.
 * `ownDatabase` (the default) gives it a database of its own: the expiry sweep and the lease sweeps
 * read every row of theirs, not only a test's own.
 */
export async function startRewardsContext(
  options: { ownDatabase?: boolean; overrides?: { provide: unknown; useValue: unknown }[] } = {},
): Promise<RewardsContext> {
  const jobs = new RecordedRewardJobs();
  const context = await startServiceContext([RewardsModule, AccountModule, AuthModule, RewardJobsModule.forwardTo(jobs)], {
    env: options.ownDatabase === false ? {} : await isolatedDatabase(),
    overrides: options.overrides,
  });
  return { ...context, dataSource: context.app.get(DataSource), jobs };
}

let seq = 0;

/** A USD account whose wallet holds `cents`, and an API-key principal that sends as it. */
export async function fundedAccount(context: ServiceContext, cents: number): Promise<Principal> {
  seq += 1;
  const { accountId } = await context.app.get(MerchantService).createMerchant({
    name: `Service test ${seq}`,
    email: `service-${seq}-${randomToken(6)}@example.test`.toLowerCase(),
    password: 'correct horse battery staple',
  });
  const ledger = context.app.get(WalletLedger);
  await context.app.get(DataSource).transaction((manager) =>
    ledger.credit(manager, { accountId, amountCents: cents, relatedType: 'topup', relatedId: newId('tu'), description: 'service test funds' }),
  );
  return { accountId, credentialKind: 'api_key', credentialId: newId('key'), scopes: new Set() };
}

/** Items of the synced (sandbox) catalog in USD, picked the same way every run. */
export async function usdItems(context: ServiceContext): Promise<{ fixed: { utid: string; valueCents: number }; failing: { utid: string; valueCents: number } }> {
  const catalog = await context.app.get(RewardCatalog).load('USD');
  const entries = [...catalog.items.values()].sort((a, b) => a.item.utid.localeCompare(b.item.utid));
  const fixedOf = (ok: (brandKey: string) => boolean) => {
    const found = entries.find(({ item, brand }) => ok(brand.brandKey) && item.valueType === 'FIXED_VALUE');
    if (!found) throw new Error('the sandbox catalog has no such USD item');
    return { utid: found.item.utid, valueCents: Math.round(Number(found.item.faceValue) * 100) };
  };
  return { fixed: fixedOf((key) => key !== 'test-failure'), failing: fixedOf((key) => key === 'test-failure') };
}

/** Sends one reward as the API does (RewardSender), and returns its ids. */
export async function sendReward(
  context: ServiceContext,
  principal: Principal,
  reward: Pick<CreateRewardDto, 'type' | 'valueCents'> & Partial<CreateRewardDto>,
): Promise<{ rewardId: string; cardIds: string[]; mailJobId: string; token: string }> {
  const dto = { recipient: { email: 'ada@example.test', firstName: 'Ada' }, ...reward } as CreateRewardDto;
  const outcome = await context.app.get(RewardSender).send(principal, dto, { idempotencyKey: null, dryRun: false });
  if (outcome.status !== 201 || !('redemptionUrl' in outcome.body)) throw new Error(`send answered ${outcome.status}`);
  const { reward: sent, redemptionUrl } = outcome.body;
  const [mailJob]: { id: string }[] = await context.app.get(DataSource).query(`SELECT id FROM mail_jobs WHERE reward_id = $1`, [sent.id]);
  return { rewardId: sent.id, cardIds: sent.issuedCards.map((card) => card.id), mailJobId: mailJob.id, token: redemptionUrl.split('/r/')[1] };
}
