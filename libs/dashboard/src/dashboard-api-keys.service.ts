import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiKeyScope, ApiKeyService, heldScopes, IdentityRepository, StoredApiKey, userActor } from '@app/account';
import { AuditTrail, CredentialResolverRegistry, scopesOfRole } from '@app/auth';
import { ForbiddenError, NotFoundError, pageWindow, UnauthorizedError } from '@app/core';
import { ActorContext } from './audit-context';
import { ApiKeyDto, ApiKeyLimitsDto, CreatedApiKeyDto } from './dto/api-keys.dto';

/**
 * API keys as the dashboard manages them: the only place outside the operator CLI where keys are
 * made. A key never grants more than its creator's role (docs/auth.md, API keys).
 */
@Injectable()
export class DashboardApiKeysService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly keys: ApiKeyService,
    private readonly audit: AuditTrail,
    private readonly registry: CredentialResolverRegistry,
    private readonly identity: IdentityRepository,
  ) {}

  async list(accountId: string, page: number, pageSize: number): Promise<{ apiKeys: ApiKeyDto[]; total: number }> {
    const { limit, offset } = pageWindow(page, pageSize);
    const [rows, total] = await this.keys.listPage(accountId, limit, offset);
    const creatorIds = [...new Set(rows.map((key) => key.createdByUserId).filter((id): id is string => id !== null))];
    const emailOf = await this.identity.emailsOf(creatorIds);
    return { apiKeys: rows.map((key) => toApiKeyDto(key, emailOf)), total };
  }

  async create(accountId: string, actor: ActorContext, input: { name: string; scopes: ApiKeyScope[]; limits?: ApiKeyLimitsDto }): Promise<CreatedApiKeyDto> {
    return this.dataSource.transaction(async (manager) => {
      // The creator's role as it is now, held until commit: a demotion or removal under way waits
      // (the team service locks the same rows) and then revokes this key too, never missing it.
      const role = await this.identity.holdRole(manager, accountId, actor.userId);
      if (!role) throw new UnauthorizedError();
      if (!scopesOfRole(role).includes('api_keys:manage')) {
        throw new ForbiddenError('This credential lacks the scope api_keys:manage that this endpoint requires.');
      }
      const limits = limitsOf(input.limits);
      const { id, key } = await this.keys.create(accountId, input.scopes, input.name, manager, { userId: actor.userId, role }, limits);
      const created = await this.keys.find(id, manager);
      await this.audit.record(manager, {
        accountId,
        action: 'api_key.created',
        targetType: 'api_key',
        targetId: id,
        metadata: { name: input.name, scopes: [...new Set(input.scopes)], grantedScopes: heldScopes(created), limits },
        ...userActor(actor),
      });
      return { apiKey: toApiKeyDto(created, new Map([[actor.userId, actor.email]])), secret: key };
    });
  }

  async revoke(accountId: string, actor: ActorContext, id: string): Promise<void> {
    const { found, revoked } = await this.dataSource.transaction(async (manager) => {
      const outcome = await this.keys.revokeInAccount(accountId, id, manager);
      if (outcome.revoked) {
        await this.audit.record(manager, { accountId, action: 'api_key.revoked', targetType: 'api_key', targetId: id, ...userActor(actor) });
      }
      return outcome;
    });
    if (!found) throw new NotFoundError('API key');
    if (revoked) this.registry.revoked();
  }
}

function toApiKeyDto(key: StoredApiKey, emailOf: Map<string, string>): ApiKeyDto {
  return {
    id: key.id,
    name: key.name,
    scopes: key.scopes,
    grantedScopes: heldScopes(key),
    // The creator's row always exists (a foreign key), so the e-mail is always found.
    createdBy: key.createdByUserId ? { userId: key.createdByUserId, email: emailOf.get(key.createdByUserId)! } : null,
    last4: key.secretLast4,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
    limits: key.maxRewardCents === null && key.dailyLimitCents === null ? null : { maxRewardCents: key.maxRewardCents, dailyLimitCents: key.dailyLimitCents },
  };
}

/** The limits asked for, or null when none is set. */
function limitsOf(input: ApiKeyLimitsDto | undefined): { maxRewardCents: number | null; dailyLimitCents: number | null } | null {
  const maxRewardCents = input?.maxRewardCents ?? null;
  const dailyLimitCents = input?.dailyLimitCents ?? null;
  return maxRewardCents === null && dailyLimitCents === null ? null : { maxRewardCents, dailyLimitCents };
}
