import { UnavailableError } from '@app/core';
import { PasswordHasher, PasswordKdf } from './password-hasher';

/** A key derivation that finishes only when the test says so, in any order. */
function controlledKdf() {
  const pending: { finish: () => void; fail: () => void }[] = [];
  const kdf: PasswordKdf = (_password, _salt, keylen) =>
    new Promise<Buffer>((resolve, reject) => pending.push({ finish: () => resolve(Buffer.alloc(keylen, 7)), fail: () => reject(new Error('kdf failed')) }));
  return { kdf, pending };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('PasswordHasher: the gate around scrypt', () => {
  it('runs at most the bound at once, queues up to the queue, refuses the rest with 503 and Retry-After', async () => {
    const { kdf, pending } = controlledKdf();
    const hasher = new PasswordHasher({ passwordHashConcurrency: 2, passwordHashQueue: 1 }, kdf);
    const running = [hasher.hash('one'), hasher.hash('two'), hasher.hash('three')];
    await settled();
    expect(pending).toHaveLength(2);
    const refused = await hasher.hash('four').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UnavailableError);
    expect(refused).toMatchObject({ status: 503, code: 'internal', headers: { 'Retry-After': '1' } });

    pending[0].finish();
    await settled();
    // The freed place went to the one waiting, and no more than two run.
    expect(pending).toHaveLength(3);
    pending[1].finish();
    pending[2].finish();
    await expect(Promise.all(running)).resolves.toHaveLength(3);
  });

  it('gives the place back when a hash fails', async () => {
    const { kdf, pending } = controlledKdf();
    const hasher = new PasswordHasher({ passwordHashConcurrency: 1, passwordHashQueue: 0 }, kdf);
    const failing = hasher.hash('one');
    await settled();
    pending[0].fail();
    await expect(failing).rejects.toThrow('kdf failed');
    // A stored hash whose key is what the controlled derivation answers.
    const next = hasher.verify('two', `scrypt$32768$8$1$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(32, 7).toString('base64')}`);
    await settled();
    expect(pending).toHaveLength(2);
    pending[1].finish();
    await expect(next).resolves.toBe(true);
  });
});
