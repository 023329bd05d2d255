import { lsnValue, replicaFault } from './read-replica';

describe('read replica helpers', () => {
  it('orders WAL positions as PostgreSQL does, across the 4 GB segment boundary', () => {
    expect(lsnValue('0/16B3748')).toBe(0x16b3748n);
    expect(lsnValue('1/0')).toBeGreaterThan(lsnValue('0/FFFFFFFF'));
    expect(lsnValue('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(lsnValue('A/1') > lsnValue('9/FFFFFFFF')).toBe(true);
  });

  it("tells the replica's faults (read again from the primary) from the read's own errors", () => {
    const pg = (code: string, message = 'x') => Object.assign(new Error(message), { code });
    expect(replicaFault(pg('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(replicaFault(pg('57P03', 'the database system is starting up'))).toBe(true);
    expect(replicaFault(pg('40001', 'canceling statement due to conflict with recovery'))).toBe(true);
    expect(replicaFault(pg('08006'))).toBe(true);
    expect(replicaFault(pg('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5433'))).toBe(true);
    expect(replicaFault(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(replicaFault(pg('42P01', 'relation "nope" does not exist'))).toBe(false);
    expect(replicaFault(pg('22P02', 'invalid input syntax'))).toBe(false);
    expect(replicaFault(new Error('Reward not found'))).toBe(false);
  });
});
