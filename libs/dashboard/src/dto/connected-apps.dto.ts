import { ApiProperty } from '@nestjs/swagger';
import { OAUTH_SCOPES, type OAuthScope } from '@app/auth';

export class ConnectedAppDto {
  /** `conn_` */
  id: string;

  clientId: string;

  appName: string;

  @ApiProperty({ enum: OAUTH_SCOPES, isArray: true })
  scopes: OAuthScope[];

  @ApiProperty({ type: String, format: 'date-time' })
  createdAt: string;
}

export class ConnectedAppListDto {
  connectedApps: ConnectedAppDto[];
}
