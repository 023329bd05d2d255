import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull, Repository } from 'typeorm';
import { AuditLog, AuditOrigin } from '@app/audit';
import { API_SCOPES, CredentialResolver, KeyLimits, CredentialResolverRegistry, Principal, Role, Scope, scopesOfApiKey, scopesOfMemberKey } from '@app/auth';
import { BadRequestError, controlCharacterProblem, hashSecret, newId, newSecret, NotFoundError, queryRows } from '@app/core';
import { AccountEntity } from './entities/account.entity';
import { API_KEY_SCOPES, ApiKeyEntity, ApiKeyScope } from './entities/api-key.entity';

const SECRET_PREFIX = 'sk_';
/** `last_used_at` is precise to the minute: at most one write per key per minute per process. */
const TOUCH_EVERY_MS = 60_000;

/** The dashboard member making a key, with their role as locked in the creating transaction. */
export interface ApiKeyCreator {
  userId: string;
  role: Role;
}

/** An API key as stored, without its secret's hash: what the dashboard lists. */
export type StoredApiKey = Omit<ApiKeyEntity, 'secretHash'>;

/** What a key may do: the scopes fixed at its creation, or the read/write rule for an operator's key. */
export function heldScopes(key: Pick<ApiKeyEntity, 'scopes' | 'grantedScopes'>): Scope[] {
  if (!key.grantedScopes) return scopesOfApiKey(key.scopes);
  // Never a dashboard-only scope, whatever the column holds.
  return API_SCOPES.filter((scope) => key.grantedScopes!.includes(scope));
}

/**
 * API keys: created and revoked by operators and the dashboard, never through the API, so a
 * leaked key cannot mint more keys. A key made in the dashboard never grants more than its
 * creator's role (docs/auth.md, API keys). Resolves `sk_` bearer credentials for the AuthGuard.
 */
@Injectable()
export class ApiKeyService implements CredentialResolver, OnModuleInit {
  private readonly touched = new Map<string, number>();

  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    @InjectRepository(AccountEntity) private readonly accounts: Repository<AccountEntity>,
    private readonly registry: CredentialResolverRegistry,
    private readonly dataSource: DataSource,
    private readonly audit: AuditLog,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  /** A page of the account's keys, newest first, and how many it has. */
  async listPage(accountId: string, limit: number, offset: number): Promise<[StoredApiKey[], number]> {
    return this.keys.findAndCount({ where: { accountId }, order: { createdAt: 'DESC', id: 'DESC' }, take: limit, skip: offset });
  }

  async find(id: string, manager: EntityManager): Promise<StoredApiKey> {
    return manager.findOneByOrFail(ApiKeyEntity, { id });
  }

  /**
   * `manager`: inside the caller's transaction (the dashboard writes its audit entry in the same
   * one). `creator`: the dashboard member making it; without one, an operator's key.
   */
  async create(
    accountId: string,
    scopes: string[],
    name = '',
    manager?: EntityManager,
    creator?: ApiKeyCreator,
    limits: KeyLimits | null = null,
  ): Promise<{ id: string; key: string }> {
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
      createdByUserId: creator?.userId ?? null,
      grantedScopes: creator ? scopesOfMemberKey(unique as ApiKeyScope[], creator.role) : null,
      maxRewardCents: limits?.maxRewardCents ?? null,
      dailyLimitCents: limits?.dailyLimitCents ?? null,
    });
    return { id, key };
  }

  /** The operator CLI's `api-key:create`: the key and its audit entry in one transaction. */
  async createByOperator(accountId: string, scopes: string[], name: string, origin: AuditOrigin): Promise<{ id: string; key: string }> {
    return this.dataSource.transaction(async (manager) => {
      const created = await this.create(accountId, scopes, name, manager);
      await this.audit.record(manager, {
        accountId,
        origin,
        action: 'api_key.created',
        targetType: 'api_key',
        targetId: created.id,
        metadata: { name, scopes: [...new Set(scopes)] },
      });
      return created;
    });
  }

  /** Revokes a key of any account; `origin` (the operator CLI) is recorded in that account's audit log. */
  async revoke(id: string, origin?: AuditOrigin): Promise<{ id: string; revokedAt: string }> {
    const revokedAt = await this.dataSource.transaction(async (manager) => {
      const [revoked] = await queryRows<{ account_id: string; revoked_at: Date }>(
        manager,
        `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING account_id, revoked_at`,
        [id],
      );
      if (revoked && origin) {
        await this.audit.record(manager, { accountId: revoked.account_id, origin, action: 'api_key.revoked', targetType: 'api_key', targetId: id });
      }
      return revoked?.revoked_at ?? (await manager.findOneBy(ApiKeyEntity, { id }))?.revokedAt;
    });
    if (!revokedAt) throw new NotFoundError('API key');
    this.registry.revoked();
    return { id, revokedAt: revokedAt.toISOString() };
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

  /**
   * Revokes the live keys `userId` made in `accountId` that hold a scope outside `keepWithin`, or
   * all of them when `keepWithin` is null (the member left). In the caller's transaction, which
   * changes the member's role; the caller drops cached credentials once it commits.
   */
  async revokeCreatedBy(
    manager: EntityManager,
    accountId: string,
    userId: string,
    keepWithin: readonly Scope[] | null,
  ): Promise<{ id: string; name: string; grantedScopes: Scope[] }[]> {
    return queryRows(
      manager,
      `UPDATE api_keys SET revoked_at = now()
        WHERE account_id = $1 AND created_by_user_id = $2 AND revoked_at IS NULL
          AND ($3::text[] IS NULL OR NOT granted_scopes <@ $3::text[])
      RETURNING id, name, granted_scopes AS "grantedScopes"`,
      [accountId, userId, keepWithin],
    );
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
      scopes: new Set(heldScopes(key)),
    };
    if (key.maxRewardCents !== null || key.dailyLimitCents !== null) {
      principal.keyLimits = { maxRewardCents: key.maxRewardCents, dailyLimitCents: key.dailyLimitCents };
    }
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
