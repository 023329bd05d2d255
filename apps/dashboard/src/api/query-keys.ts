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
}

export const queryKeys = {
  /** The signed-in session; the only query a new session keeps (session.ts, startSession). */
  session: () => ['session'] as const,
  account: () => ['account'] as const,
  overview: () => ['overview'] as const,
  catalog: () => ['catalog'] as const,
  catalogRules: () => ['catalog-rules'] as const,
  rewards: {
    all: () => ['rewards'] as const,
    list: (filters: RewardListFilters) => ['rewards', 'list', filters] as const,
    detail: (id: string) => ['rewards', 'detail', id] as const,
  },
  /**
   * A reward's redemption link, outside the `rewards` prefix on purpose: it never changes, and
   * reading it again after money moved would be one more credentials read for nothing.
   */
  rewardLink: (id: string) => ['reward-link', id] as const,
  wallet: {
    all: () => ['wallet'] as const,
    balance: () => ['wallet', 'balance'] as const,
    /** Every wallet of the account, one per currency (GET /v1/wallets). */
    list: () => ['wallet', 'list'] as const,
    transactions: (page: number) => ['wallet', 'transactions', page] as const,
  },
  webhooks: {
    endpoints: () => ['webhooks', 'endpoints'] as const,
    deliveries: (endpointId: string) => ['webhooks', 'deliveries', endpointId] as const,
  },
  /** Exchange rates: they move with the rate source, not with the account's money. */
  fxRates: () => ['fx-rates'] as const,
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
