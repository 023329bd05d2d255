import { Condition, Statement } from './statement';

describe('Statement', () => {
  it('names each part uniquely, however often a label is used, and renders handles by name', () => {
    const statement = new Statement();
    const first = statement.with('claim', 'SELECT 1');
    const second = statement.with('claim', 'SELECT 2');
    expect([first.name, second.name]).toEqual(['claim', 'claim_2']);
    expect(statement.text(`SELECT * FROM ${first}, ${second}`)).toBe(
      'WITH claim AS (SELECT 1),\nclaim_2 AS (SELECT 2)\nSELECT * FROM claim, claim_2',
    );
  });

  it('guards inserts with conditions built from handles', () => {
    const statement = new Statement();
    const fresh = statement.with('fresh', 'SELECT 1');
    const claim = statement.with('claim', 'SELECT 1');
    statement.insertRows('rows', 'things', [{ id: 'a' }], { onlyIf: Condition.all(Condition.exists(fresh), Condition.exists(claim)) });
    expect(statement.text('SELECT 1')).toContain('WHERE EXISTS (SELECT 1 FROM fresh) AND EXISTS (SELECT 1 FROM claim)');
    expect(statement.params).toEqual([JSON.stringify([{ id: 'a' }])]);
  });

  it('takes conditions only as values built from handles, never as SQL text (checked by the compiler)', () => {
    const statement = new Statement();
    // @ts-expect-error a condition cannot be written as text, so it cannot name a CTE that is not there
    expect(() => statement.insertRows('rows', 'things', [{ id: 'a' }], { onlyIf: 'EXISTS (SELECT 1 FROM clam)' })).toThrow();
    // @ts-expect-error nor can a CTE name be passed where a handle is expected
    expect(() => Condition.exists('claim')).toThrow();
  });

  it("refuses a condition on another statement's part", () => {
    const other = new Statement().with('fresh', 'SELECT 1');
    expect(() => new Statement().insertRows('rows', 'things', [{ id: 'a' }], { onlyIf: Condition.exists(other) })).toThrow(
      /fresh, which is not a part of this statement/,
    );
  });
});
