/**
 * Every query key of the app, made here and nowhere else (docs/dashboard.md, The web app). Keys are
 * arrays whose first element names a domain, so one prefix reaches every query of the domain:
 * `queryKeys.rewards.all()` covers each list page and each reward's detail.
 */

/** The filters of a rewards list page, as the Rewards page and the Overview ask for them. */
export interface RewardListFilters {
  page: number;
  pageSize: number;
  status?: string;
  externalId?: string;
  type?: string;
  campaign?: string;
  currency?: string;
  /** UTC days `YYYY-MM-DD`, both included (docs/dashboard.md, Filters). */
  from?: string;
  to?: string;
  recipient?: string;
  sort?: string;
}

/** The filters of the Wallet page's transactions beside the currency (days as in RewardListFilters). */
export interface WalletTransactionFilters {
  kind?: string;
  relatedId?: string;
  from?: string;
  to?: string;
}

export const queryKeys = {
  /** The signed-in session; the only query a new session keeps (session.ts, startSession). */
  session: () => ['session'] as const,
  account: () => ['account'] as const,
  /** Low-balance thresholds per currency (docs/alerts.md). */
  alertSettings: () => ['alert-settings'] as const,
  /** Reward reminder e-mails (docs/delivery.md, Reminders). */
  reminderSettings: () => ['reminder-settings'] as const,
  overview: () => ['overview'] as const,
  /** Approvals (docs/controls.md): the threshold, the waiting sends and their count. */
  approvals: {
    all: () => ['approvals'] as const,
    settings: () => ['approvals', 'settings'] as const,
    pending: () => ['approvals', 'pending'] as const,
    count: () => ['approvals', 'count'] as const,
  },
  /** Value sent per day (the Overview chart): it follows sends, so money moving refreshes it with the overview. */
  overviewDaily: (days: number) => ['overview', 'daily', days] as const,
  catalog: () => ['catalog'] as const,
  catalogRules: () => ['catalog-rules'] as const,
  rewards: {
    all: () => ['rewards'] as const,
    list: (filters: RewardListFilters) => ['rewards', 'list', filters] as const,
    detail: (id: string) => ['rewards', 'detail', id] as const,
    /** A reward's money trail (GET /v1/rewards/{id}/ledger). */
    ledger: (id: string) => ['rewards', 'ledger', id] as const,
  },
  /**
   * A reward's redemption link, outside the `rewards` prefix on purpose: it never changes, and
   * reading it again after money moved would be one more credentials read for nothing.
   */
  rewardLink: (id: string) => ['reward-link', id] as const,
  wallet: {
    all: () => ['wallet'] as const,
    /** Every wallet of the account (one per currency), the primary first. */
    list: () => ['wallet', 'list'] as const,
    /** A page of transactions, of one currency's wallet or (`currency` undefined) of every wallet. */
    transactions: (page: number, currency: string | undefined, filters: WalletTransactionFilters = {}) =>
      ['wallet', 'transactions', { page, currency, ...filters }] as const,
    /** One wallet's monthly statement (`YYYY-MM`, UTC): money moving changes the current month's. */
    statement: (month: string, currency: string) => ['wallet', 'statement', month, currency] as const,
  },
  /** Exchange rates: they follow the rate source, not the account's money, so a conversion leaves them be. */
  fxRates: () => ['fx-rates'] as const,
  webhooks: {
    endpoints: () => ['webhooks', 'endpoints'] as const,
    deliveries: (endpointId: string) => ['webhooks', 'deliveries', endpointId] as const,
    /** Under `deliveries`, so a retry or a new list refreshes the open delivery too. */
    delivery: (endpointId: string, deliveryId: string) => ['webhooks', 'deliveries', endpointId, deliveryId] as const,
  },
  /** Reports (docs/reports.md): `reports()` reaches every page of the list. */
  reports: (page?: number) => (page === undefined ? (['reports'] as const) : (['reports', { page }] as const)),
  apiKeys: () => ['api-keys'] as const,
  team: {
    members: () => ['team', 'members'] as const,
    invitations: () => ['team', 'invitations'] as const,
    all: () => ['team'] as const,
  },
  /** An invitation read by its link's token (no session needed). */
  invitation: (token: string) => ['invitation', token] as const,
  connectedApps: () => ['connected-apps'] as const,
  auditLog: (page: number, action: string | undefined) => ['audit-log', { page, action }] as const,
};
