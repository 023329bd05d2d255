import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, IsNull, Repository } from 'typeorm';
import { CredentialResolverRegistry, OAuthScope } from '@app/auth';
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
    @InjectRepository(OAuthClientEntity) private readonly clients: Repository<OAuthClientEntity>,
    private readonly credentials: CredentialResolverRegistry,
  ) {}

  /** Live connections, newest first. */
  async list(accountId: string): Promise<ConnectedApp[]> {
    const connections = await this.connections.find({
      where: { accountId, revokedAt: IsNull() },
      order: { createdAt: 'DESC' },
    });
    if (connections.length === 0) return [];
    const clients = await this.clients.findBy({ id: In(connections.map((connection) => connection.clientId)) });
    const nameOf = new Map(clients.map((client) => [client.id, client.name]));
    return connections.map((connection) => ({
      id: connection.id,
      clientId: connection.clientId,
      appName: nameOf.get(connection.clientId)!,
      scopes: connection.scopes,
      createdAt: connection.createdAt,
    }));
  }

  /**
   * Ends the connection: every access and refresh token issued under it stops working at once
   * (the token resolver and the refresh grant both check the connection). Another account's
   * connection is reported as not found. `manager`: inside the caller's transaction.
   */
  async revoke(accountId: string, connectionId: string, manager?: EntityManager): Promise<void> {
    const connections = manager ? manager.getRepository(OAuthConnectionEntity) : this.connections;
    const result = await connections.update(
      { id: connectionId, accountId, revokedAt: IsNull() },
      { revokedAt: () => 'now()' },
    );
    if (!result.affected) throw new NotFoundError('Connection');
    this.credentials.revoked();
  }
}
