import { AccountsAndCredentials1763750000000 } from './1763750000000-accounts-and-credentials';
import { WalletLedgerOutboxTopups1763770000000 } from './1763770000000-wallet-ledger-outbox-topups';
import { OAuth1763790000000 } from './1763790000000-oauth';

/** Every migration, in order. A new migration is added here as well as in its own file. */
export const MIGRATIONS = [AccountsAndCredentials1763750000000, WalletLedgerOutboxTopups1763770000000, OAuth1763790000000];
