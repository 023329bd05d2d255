import { AccountsAndCredentials1763750000000 } from './1763750000000-accounts-and-credentials';
import { Catalog1763760000000 } from './1763760000000-catalog';
import { WalletLedgerOutboxTopups1763770000000 } from './1763770000000-wallet-ledger-outbox-topups';
import { Webhooks1763780000000 } from './1763780000000-webhooks';
import { OAuth1763790000000 } from './1763790000000-oauth';
import { Rewards1763800000000 } from './1763800000000-rewards';
import { Dashboard1763850000000 } from './1763850000000-dashboard';
import { AuditLog1763900000000 } from './1763900000000-audit-log';
import { CatalogRules1763910000000 } from './1763910000000-catalog-rules';
import { SecretsAtRest1763920000000 } from './1763920000000-secrets-at-rest';
import { CardIssuanceLease1763940000000 } from './1763940000000-card-issuance-lease';
import { ListCounts1763950000000 } from './1763950000000-list-counts';
import { WalletLedgerPerStatement1763960000000 } from './1763960000000-wallet-ledger-per-statement';
import { DeliveryLeases1763970000000 } from './1763970000000-delivery-leases';
import { ListCountChangesFine1763975000000 } from './1763975000000-list-count-changes-fine';
import { WebhookDeliveryWrites1763980000000 } from './1763980000000-webhook-delivery-writes';
import { DatabaseRoles1763990000000 } from './1763990000000-database-roles';
import { ApiKeyCreators1763990026000 } from './1763990026000-api-key-creators';
import { OAuthTwoFactorSessions1763992600000 } from './1763992600000-oauth-two-factor-sessions';

/** Every migration, in order. A new migration is added here as well as in its own file. */
export const MIGRATIONS = [
  AccountsAndCredentials1763750000000,
  Catalog1763760000000,
  WalletLedgerOutboxTopups1763770000000,
  Webhooks1763780000000,
  OAuth1763790000000,
  Rewards1763800000000,
  Dashboard1763850000000,
  AuditLog1763900000000,
  CatalogRules1763910000000,
  SecretsAtRest1763920000000,
  CardIssuanceLease1763940000000,
  ListCounts1763950000000,
  WalletLedgerPerStatement1763960000000,
  DeliveryLeases1763970000000,
  ListCountChangesFine1763975000000,
  WebhookDeliveryWrites1763980000000,
  DatabaseRoles1763990000000,
  ApiKeyCreators1763990026000,
  OAuthTwoFactorSessions1763992600000,
];
