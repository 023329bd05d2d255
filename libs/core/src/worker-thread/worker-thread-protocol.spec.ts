import { mergeWork } from './worker-thread-protocol';

describe('mergeWork', () => {
  it('hands one piece of work on as it is', () => {
    const work = { cardIds: ['card_a'], mailJobIds: ['mail_a'] };
    expect(mergeWork([work])).toEqual([work]);
    expect(mergeWork([])).toEqual([]);
  });

  it('joins the work of several sends into one, keeping every id in order', () => {
    expect(
      mergeWork([
        { cardIds: [], mailJobIds: ['mail_a'] },
        { cardIds: ['card_b'], mailJobIds: ['mail_b'] },
        { mailJobIds: ['mail_c1', 'mail_c2'], expiredMailLeases: [{ id: 'mail_x', attempts: 2 }] },
      ]),
    ).toEqual([{ cardIds: ['card_b'], mailJobIds: ['mail_a', 'mail_b', 'mail_c1', 'mail_c2'], expiredMailLeases: [{ id: 'mail_x', attempts: 2 }] }]);
  });

  it('never merges swept work: its ids are checked for husks, the fresh ones are not', () => {
    const swept = { mailJobIds: ['mail_old'], swept: true };
    expect(mergeWork([{ mailJobIds: ['mail_a'] }, swept, { cardIds: ['card_b'] }])).toEqual([{ cardIds: ['card_b'], mailJobIds: ['mail_a'] }, swept]);
    expect(mergeWork([swept, swept])).toEqual([swept, swept]);
  });
});
