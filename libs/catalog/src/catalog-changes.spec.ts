import { catalogUpdatedEvents, ItemChange, visibleChanges } from './catalog-changes';

const changes: ItemChange[] = [
  { utid: 'U2', brandKey: 'starbucks', kind: 'added' },
  { utid: 'U1', brandKey: 'starbucks', kind: 'added' },
  { utid: 'U3', brandKey: 'target', kind: 'removed' },
  { utid: 'U4', brandKey: 'amazon-us', kind: 'changed' },
];

describe('catalog.updated per account', () => {
  it('an account without rules sees every change, each list sorted', () => {
    expect(visibleChanges(null, changes)).toEqual({ added: ['U1', 'U2'], removed: ['U3'], changed: ['U4'] });
  });

  it("lists only the items of brands the account's rules allow (a blocked brand stays out even when allowed)", () => {
    expect(visibleChanges({ allowedBrandKeys: ['starbucks', 'target'], blockedBrandKeys: ['target'] }, changes)).toEqual({
      added: ['U1', 'U2'],
      removed: [],
      changed: [],
    });
    expect(visibleChanges({ allowedBrandKeys: null, blockedBrandKeys: ['starbucks'] }, changes)).toEqual({ added: [], removed: ['U3'], changed: ['U4'] });
  });

  it('an account that may see none of the changes gets no event', () => {
    const events = catalogUpdatedEvents(
      [
        { accountId: 'acct_all', rules: null },
        { accountId: 'acct_none', rules: { allowedBrandKeys: ['nike'], blockedBrandKeys: [] } },
        { accountId: 'acct_coffee', rules: { allowedBrandKeys: ['starbucks'], blockedBrandKeys: [] } },
      ],
      changes,
    );
    expect(events).toEqual([
      { accountId: 'acct_all', data: { added: ['U1', 'U2'], removed: ['U3'], changed: ['U4'] } },
      { accountId: 'acct_coffee', data: { added: ['U1', 'U2'], removed: [], changed: [] } },
    ]);
    expect(catalogUpdatedEvents([{ accountId: 'acct_all', rules: null }], [])).toEqual([]);
  });
});
