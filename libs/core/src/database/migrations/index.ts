import { Baseline1764000000000 } from './1764000000000-baseline';
import { WalletsPerCurrency1764400000000 } from './1764400000000-wallets-per-currency';
import { LowBalanceAlerts1764600000000 } from './1764600000000-low-balance-alerts';
import { LowBalanceMailLease1764610000000 } from './1764610000000-low-balance-mail-lease';
import { ListFilters1764530000000 } from './1764530000000-list-filters';
import { SentPerDay1764540000000 } from './1764540000000-sent-per-day';
import { RewardFx1764460000000 } from './1764460000000-reward-fx';
import { EventsApiReplay1764720000000 } from './1764720000000-events-api-replay';
import { Reports1764700000000 } from './1764700000000-reports';
import { Controls1764730000000 } from './1764730000000-controls';
import { RecipientLanguageDelivery1764740000000 } from './1764740000000-recipient-language-delivery';
import { ScheduledSends1764800000000 } from './1764800000000-scheduled-sends';
import { RewardReminders1764810000000 } from './1764810000000-reward-reminders';
import { RewardSms1764820000000 } from './1764820000000-reward-sms';
import { RewardSearch1764840000000 } from './1764840000000-reward-search';
import { MailJobsPendingByReward1764850000000 } from './1764850000000-mail-jobs-pending-by-reward';
import { CampaignCreated1764860000000 } from './1764860000000-campaign-created';

/**
 * Every migration, in order. A new migration is added here as well as in its own file.
 *
 * A migration is never rewritten once committed: databases that ran it will not run it again, so a
 * change to the schema is always a new migration (and test/foundation/schema.sql is updated with it:
 * docs/operations.md, Migrations). The baseline folded the development migrations into one before
 * anything was deployed; that happens once.
 */
export const MIGRATIONS = [
  Baseline1764000000000,
  WalletsPerCurrency1764400000000,
  RewardFx1764460000000,
  ListFilters1764530000000,
  SentPerDay1764540000000,
  LowBalanceAlerts1764600000000,
  LowBalanceMailLease1764610000000,
  Reports1764700000000,
  EventsApiReplay1764720000000,
  Controls1764730000000,
  RecipientLanguageDelivery1764740000000,
  ScheduledSends1764800000000,
  RewardReminders1764810000000,
  RewardSms1764820000000,
  RewardSearch1764840000000,
  MailJobsPendingByReward1764850000000,
  CampaignCreated1764860000000,
];
