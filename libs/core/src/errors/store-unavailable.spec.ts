import { storeUnavailable } from './store-unavailable';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('storeUnavailable', () => {
  it('recognises PostgreSQL being away, directly or inside a TypeORM QueryFailedError', () => {
    expect(storeUnavailable(withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'))).toBe('postgres');
    expect(storeUnavailable(new Error('Connection terminated unexpectedly'))).toBe('postgres');
    expect(storeUnavailable(new Error('timeout exceeded when trying to connect'))).toBe('postgres');
    expect(storeUnavailable({ name: 'QueryFailedError', message: 'q', driverError: withCode('57P01') })).toBe('postgres');
    expect(storeUnavailable({ name: 'QueryFailedError', message: 'q', driverError: withCode('08006') })).toBe('postgres');
  });

  it('recognises Redis being away', () => {
    expect(storeUnavailable(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe('redis');
    expect(storeUnavailable(new Error('Command timed out'))).toBe('redis');
  });

  it('leaves every other error alone, including a socket error deep in an HTTP client', () => {
    expect(storeUnavailable({ name: 'QueryFailedError', message: 'q', driverError: withCode('23505') })).toBeNull();
    expect(storeUnavailable(Object.assign(new TypeError('fetch failed'), { cause: withCode('ECONNREFUSED') }))).toBeNull();
    expect(storeUnavailable(new Error('boom'))).toBeNull();
    expect(storeUnavailable(undefined)).toBeNull();
  });
});
