import { QueryClient, type QueryKey } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { moneyMoved } from './money-moved';
import { queryKeys } from './query-keys';

describe('moneyMoved: what a send, cancel, resend or top-up makes stale', () => {
  it('every rewards list and detail, the overview and the wallet are read again; nothing else is', async () => {
    const client = new QueryClient();
    const stale: [string, QueryKey][] = [
      ['a rewards page', queryKeys.rewards.list({ page: 2, pageSize: 100, status: 'SENT' })],
      ["the Overview's recent rewards", queryKeys.rewards.list({ page: 1, pageSize: 5 })],
      ["a reward's page", queryKeys.rewards.detail('rwd_1')],
      ['the overview figures', queryKeys.overview()],
      ['the wallet balance', queryKeys.wallet.balance()],
      ['every wallet, one per currency', queryKeys.wallet.list()],
      ['a wallet transactions page', queryKeys.wallet.transactions(3)],
    ];
    const untouched: [string, QueryKey][] = [
      ['the session', queryKeys.session()],
      ['the account', queryKeys.account()],
      ['the catalog', queryKeys.catalog()],
      ['the exchange rates', queryKeys.fxRates()],
      ["a reward's redemption link", queryKeys.rewardLink('rwd_1')],
      ['the webhook endpoints', queryKeys.webhooks.endpoints()],
      ['the team', queryKeys.team.members()],
      ['the API keys', queryKeys.apiKeys()],
      ['the audit log', queryKeys.auditLog(1, undefined)],
    ];
    for (const [, key] of [...stale, ...untouched]) client.setQueryData(key, { cached: true });

    await moneyMoved(client);

    const invalidated = (keys: [string, QueryKey][]) => keys.filter(([, key]) => client.getQueryState(key)?.isInvalidated).map(([name]) => name);
    expect(invalidated(stale)).toEqual(stale.map(([name]) => name));
    expect(invalidated(untouched)).toEqual([]);
  });
});
