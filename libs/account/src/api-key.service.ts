import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { CredentialResolver, CredentialResolverRegistry, Principal, scopesOfApiKey } from '@app/auth';
import { BadRequestError, controlCharacterProblem, hashSecret, newId, newSecret, NotFoundError } from '@app/core';
import { AccountEntity } from './entities/account.entity';
import { API_KEY_SCOPES, ApiKeyEntity, ApiKeyScope } from './entities/api-key.entity';

const SECRET_PREFIX = 'sk_';
/** `last_used_at` is precise to the minute: at most one write per key per minute per process. */
const TOUCH_EVERY_MS = 60_000;

/**
 * API keys: created and revoked by operators and (later) the dashboard, never through the API,
 * so a leaked key cannot mint more keys. Resolves `sk_` bearer credentials for the AuthGuard.
 */
@Injectable()
export class ApiKeyService implements CredentialResolver, OnModuleInit {
  private readonly touched = new Map<string, number>();

  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    @InjectRepository(AccountEntity) private readonly accounts: Repository<AccountEntity>,
    private readonly registry: CredentialResolverRegistry,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  /** `manager`: inside the caller's transaction (the dashboard writes its audit entry in the same one). */
  async create(accountId: string, scopes: string[], name = '', manager?: EntityManager): Promise<{ id: string; key: string }> {
    const unique = [...new Set(scopes)];
    if (unique.length === 0 || unique.some((scope) => !API_KEY_SCOPES.includes(scope as ApiKeyScope))) {
      throw new BadRequestError([{ path: 'scopes', message: 'must be read, write or read,write' }]);
    }
    if (name.length > 100) throw new BadRequestError([{ path: 'name', message: 'must be at most 100 characters' }]);
    const nameProblem = controlCharacterProblem(name);
    if (nameProblem) throw new BadRequestError([{ path: 'name', message: nameProblem }]);
    const [accounts, keys] = manager
      ? [manager.getRepository(AccountEntity), manager.getRepository(ApiKeyEntity)]
      : [this.accounts, this.keys];
    if (!(await accounts.existsBy({ id: accountId }))) throw new NotFoundError('Account');
    const key = newSecret('sk');
    const id = newId('key');
    await keys.insert({
      id,
      accountId,
      name,
      secretHash: hashSecret(key),
      secretLast4: key.slice(-4),
      scopes: unique as ApiKeyScope[],
    });
    return { id, key };
  }

  async revoke(id: string): Promise<{ id: string; revokedAt: string }> {
    const result = await this.keys.update({ id, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    if (result.affected) this.registry.revoked();
    const key = await this.keys.findOneBy({ id });
    if (!key?.revokedAt) throw new NotFoundError('API key');
    return { id, revokedAt: key.revokedAt.toISOString() };
  }

  /**
   * Revokes a key of `accountId` (the dashboard); false when the account has no such key. Revoking
   * a revoked key changes nothing. Every process drops its cached credentials once it commits.
   */
  async revokeInAccount(accountId: string, id: string, manager: EntityManager): Promise<{ found: boolean; revoked: boolean }> {
    const key = await manager.findOneBy(ApiKeyEntity, { id, accountId });
    if (!key) return { found: false, revoked: false };
    const result = await manager.update(ApiKeyEntity, { id, accountId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
    return { found: true, revoked: !!result.affected };
  }

  claims(credential: string): boolean {
    return credential.startsWith(SECRET_PREFIX);
  }

  async resolve(credential: string): Promise<Principal | null> {
    // Looked up by hash: the secret itself is never stored or compared.
    const key = await this.keys.findOneBy({ secretHash: hashSecret(credential), revokedAt: IsNull() });
    if (!key) return null;
    const principal: Principal = {
      accountId: key.accountId,
      credentialKind: 'api_key',
      credentialId: key.id,
      scopes: new Set(scopesOfApiKey(key.scopes)),
    };
    this.used(principal);
    return principal;
  }

  /** Records use at most once a minute per key, off the request path. */
  used(principal: Principal): void {
    const id = principal.credentialId;
    const now = Date.now();
    if (now - (this.touched.get(id) ?? 0) < TOUCH_EVERY_MS) return;
    if (this.touched.size > 10_000) this.touched.clear();
    this.touched.set(id, now);
    void this.keys
      .createQueryBuilder()
      .update()
      .set({ lastUsedAt: () => 'now()' })
      .where('id = :id AND (last_used_at IS NULL OR last_used_at < now() - interval \'1 minute\')', { id })
      .execute()
      .catch(() => undefined);
  }
}
