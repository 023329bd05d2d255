import { AccountsAndCredentials1763750000000 } from './1763750000000-accounts-and-credentials';
import { Catalog1763760000000 } from './1763760000000-catalog';
import { WalletLedgerOutboxTopups1763770000000 } from './1763770000000-wallet-ledger-outbox-topups';
import { Webhooks1763780000000 } from './1763780000000-webhooks';
import { OAuth1763790000000 } from './1763790000000-oauth';
import { Rewards1763800000000 } from './1763800000000-rewards';
import { WebhookDueByEndpoint1763805000000 } from './1763805000000-webhook-due-by-endpoint';
import { CredentialRevocationNotify1763810000000 } from './1763810000000-credential-revocation-notify';
import { WalletCurrencyFixed1763820000000 } from './1763820000000-wallet-currency-fixed';
import { CatalogRevisionNotify1763830000000 } from './1763830000000-catalog-revision-notify';
import { EventsWithoutNotify1763840000000 } from './1763840000000-events-without-notify';
import { Dashboard1763850000000 } from './1763850000000-dashboard';

/** Every migration, in order. A new migration is added here as well as in its own file. */
export const MIGRATIONS = [
  AccountsAndCredentials1763750000000,
  Catalog1763760000000,
  WalletLedgerOutboxTopups1763770000000,
  Webhooks1763780000000,
  OAuth1763790000000,
  Rewards1763800000000,
  WebhookDueByEndpoint1763805000000,
  CredentialRevocationNotify1763810000000,
  WalletCurrencyFixed1763820000000,
  CatalogRevisionNotify1763830000000,
  EventsWithoutNotify1763840000000,
  Dashboard1763850000000,
];
