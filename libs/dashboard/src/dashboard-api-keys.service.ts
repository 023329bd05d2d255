import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiKeyEntity, ApiKeyScope, ApiKeyService } from '@app/account';
import { AuditTrail, CredentialResolverRegistry } from '@app/auth';
import { NotFoundError, pageWindow } from '@app/core';
import { ActorContext, userActor } from './audit-context';
import { ApiKeyDto, CreatedApiKeyDto } from './dto/api-keys.dto';

/** API keys as the dashboard manages them: the only place outside the operator CLI where keys are made. */
@Injectable()
export class DashboardApiKeysService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly keys: ApiKeyService,
    private readonly audit: AuditTrail,
    private readonly registry: CredentialResolverRegistry,
  ) {}

  async list(accountId: string, page: number, pageSize: number): Promise<{ apiKeys: ApiKeyDto[]; total: number }> {
    const { limit, offset } = pageWindow(page, pageSize);
    const [rows, total] = await this.dataSource.getRepository(ApiKeyEntity).findAndCount({
      where: { accountId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
      skip: offset,
    });
    return { apiKeys: rows.map(toApiKeyDto), total };
  }

  async create(accountId: string, actor: ActorContext, input: { name: string; scopes: ApiKeyScope[] }): Promise<CreatedApiKeyDto> {
    return this.dataSource.transaction(async (manager) => {
      const { id, key } = await this.keys.create(accountId, input.scopes, input.name, manager);
      await this.audit.record(manager, {
        accountId,
        action: 'api_key.created',
        targetType: 'api_key',
        targetId: id,
        metadata: { name: input.name, scopes: [...new Set(input.scopes)] },
        ...userActor(actor),
      });
      const created = await manager.findOneByOrFail(ApiKeyEntity, { id });
      return { apiKey: toApiKeyDto(created), secret: key };
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

function toApiKeyDto(key: ApiKeyEntity): ApiKeyDto {
  return {
    id: key.id,
    name: key.name,
    scopes: key.scopes,
    last4: key.secretLast4,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}
