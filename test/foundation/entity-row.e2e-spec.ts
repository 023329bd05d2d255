import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
import { entityFromRow, entityRow, Statement } from '@app/core';

/** A column name with a backslash: pasted as it is into the mapper's generated code, its `\n` would read as a line break. */
const LABEL_COLUMN = 'label\\name';

/** A test-only entity whose column transformer is not the identity: dollars in memory, cents stored. */
@Entity('priced_things')
class PricedThing {
  @Column({ type: 'bigint', generated: 'identity', generatedIdentity: 'ALWAYS', insert: false, update: false, select: false })
  seq: string;

  @PrimaryColumn('text')
  id: string;

  @Column({
    name: 'price_cents',
    type: 'bigint',
    transformer: { to: (dollars: number) => Math.round(dollars * 100), from: (cents: string) => Number(cents) / 100 },
  })
  price: number;

  @Column({ type: 'text', nullable: true })
  note: string | null;

  @Column({ name: 'seen_at', type: 'timestamptz', nullable: true })
  seenAt: Date | null;

  /** A column name that is not an identifier: the compiled mapper must quote it, not paste it into its code. */
  @Column({ name: LABEL_COLUMN, type: 'text', nullable: true })
  label: string | null;
}

/**
 * Statements write entities through `entityRow`, not through TypeORM: a column transformer must
 * still decide what is stored, or such a write would store something else than TypeORM's own.
 */
describe('entityRow', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await new DataSource({ type: 'postgres', url: process.env.DATABASE_URL!, entities: [PricedThing] }).initialize();
    await dataSource.query(
      `CREATE TABLE priced_things (seq bigint GENERATED ALWAYS AS IDENTITY, id text PRIMARY KEY, price_cents bigint NOT NULL, note text, seen_at timestamptz,
                                   "${LABEL_COLUMN}" text)`,
    );
  });
  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('applies column transformers, leaves out what TypeORM never inserts, and keeps explicit nulls', () => {
    const row = entityRow(dataSource.getMetadata(PricedThing), Object.assign(new PricedThing(), { id: 'a', price: 12.34, note: null }));
    expect(row).toEqual({ id: 'a', price_cents: 1234, note: null });
  });

  it('stores through a statement exactly what TypeORM stores, and reads back the same entity', async () => {
    const metadata = dataSource.getMetadata(PricedThing);
    const statement = new Statement();
    statement.insertRows('things', 'priced_things', [entityRow(metadata, Object.assign(new PricedThing(), { id: 'by-statement', price: 19.99, note: null, seenAt: null }))]);
    await dataSource.query(statement.text('SELECT 1'), statement.params);
    await dataSource.manager.insert(PricedThing, { id: 'by-typeorm', price: 19.99, note: null, seenAt: null });

    const stored = await dataSource.query(`SELECT id, price_cents::int AS cents FROM priced_things ORDER BY id`);
    expect(stored).toEqual([
      { id: 'by-statement', cents: 1999 },
      { id: 'by-typeorm', cents: 1999 },
    ]);
    expect(await dataSource.manager.findOneByOrFail(PricedThing, { id: 'by-statement' })).toEqual(
      Object.assign(new PricedThing(), { id: 'by-statement', price: 19.99, note: null, seenAt: null, label: null }),
    );
  });

  it('entityFromRow reads a plain row, and one inside json_agg, as TypeORM reads the entity', async () => {
    await dataSource.manager.insert(PricedThing, { id: 'read-back', price: 4.5, note: 'n', seenAt: new Date('2026-01-02T03:04:05.678Z'), label: 'odd' });
    const toEntity = entityFromRow<PricedThing>(dataSource.getMetadata(PricedThing));
    const expected = await dataSource.manager.findOneByOrFail(PricedThing, { id: 'read-back' });
    const [plain] = await dataSource.query(`SELECT t.* FROM priced_things t WHERE id = 'read-back'`);
    const [{ rows }] = await dataSource.query(`SELECT json_agg(t) AS rows FROM priced_things t WHERE id = 'read-back'`);
    for (const row of [plain, rows[0]]) {
      const entity = toEntity(row);
      expect(entity).toEqual({ ...expected });
      expect(entity).not.toHaveProperty('seq'); // select: false
      expect(entity.label).toBe('odd');
      expect(entity.seenAt).toBeInstanceOf(Date);
    }
  });
});
