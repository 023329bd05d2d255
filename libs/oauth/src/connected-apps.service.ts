import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import type { OAuthScope } from '@app/auth';
import { NotFoundError } from '@app/core';
import { OAuthClientEntity } from './entities/oauth-client.entity';
import { OAuthConnectionEntity } from './entities/oauth-connection.entity';

export interface ConnectedApp {
  /** `conn_` */
  id: string;
  clientId: string;
  appName: string;
  scopes: OAuthScope[];
  createdAt: Date;
}

/** The apps an account has connected, for the dashboard's connected-apps page. */
@Injectable()
export class ConnectedAppsService {
  constructor(
    @InjectRepository(OAuthConnectionEntity) private readonly connections: Repository<OAuthConnectionEntity>,
  ) {}

  /** Live connections, newest first. */
  async list(accountId: string): Promise<ConnectedApp[]> {
    const rows = await this.connections
      .createQueryBuilder('connection')
      .innerJoinAndMapOne('connection.client', OAuthClientEntity, 'client', 'client.id = connection.clientId')
      .where('connection.accountId = :accountId AND connection.revokedAt IS NULL', { accountId })
      .orderBy('connection.createdAt', 'DESC')
      .getMany();
    return rows.map((row) => {
      const client = (row as OAuthConnectionEntity & { client: OAuthClientEntity }).client;
      return { id: row.id, clientId: row.clientId, appName: client.name, scopes: row.scopes, createdAt: row.createdAt };
    });
  }

  /**
   * Ends the connection: every access and refresh token issued under it stops working at once
   * (the token resolver and the refresh grant both check the connection). Another account's
   * connection is reported as not found.
   */
  async revoke(accountId: string, connectionId: string): Promise<void> {
    const result = await this.connections.update(
      { id: connectionId, accountId, revokedAt: IsNull() },
      { revokedAt: () => 'now()' },
    );
    if (!result.affected) throw new NotFoundError('Connection');
  }
}
