import { createRewardsClient } from './index.js';

/** The README example, compiled with the client so it cannot go stale. */
export async function sendReward(token: string): Promise<string | undefined> {
  const rewards = createRewardsClient({ baseUrl: 'https://rewards.example.com', token });
  const { data, error } = await rewards.POST('/v1/rewards', {
    body: { type: 'CHOICE', valueCents: 2500, recipient: { email: 'ada@example.com', firstName: 'Ada' } },
  });
  if (error) throw new Error(`${error.error}: ${error.message}`);
  return data && 'redemptionUrl' in data ? data.reward.id : undefined; // a dry run's 200 has no redemptionUrl (nor ids)
}
