// What other modules may use of rewards. Entities, the repository and the send's internals stay
// inside: every change of a reward's state goes through RewardLifecycle.
export * from './rewards.module';
export * from './rewards-worker.module';
export { RewardsService } from './rewards.service';
export type { RewardLedger, RewardListFilter, RewardStats } from './rewards.service';
export { RewardJobs, RewardJobsModule } from './reward-jobs';
export type { RewardWork } from './reward-jobs';
export { CardIssuanceService } from './card-issuance.service';
export type { IssuanceOutcome } from './card-issuance.service';
export { RewardBackgroundJobs, REWARD_JOB_SWEEP } from './reward-background.jobs';
export { awaitingDelivery, RewardLifecycle } from './lifecycle/reward-lifecycle.service';
export type { PickOutcome, RedeemableReward } from './lifecycle/reward-lifecycle.service';
export { RewardCatalog, valueRuleOf } from './reward-catalog';
export type { IssuedCardDto, RewardFxDto } from './dto/reward.dto';
export { REWARD_FX_SCHEMA } from './dto/reward.dto';
export { REWARD_SEALED_COLUMNS } from './lifecycle/reward.repository';
export { RewardReports, REWARD_REPORT_COLUMNS, CARD_REPORT_COLUMNS, REWARD_FILTER_FIELDS } from './reward-reports';
export { ApprovalsDashboardModule } from './approvals/approvals-dashboard.module';
