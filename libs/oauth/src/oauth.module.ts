import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountModule } from '@app/account';
import { AuditModule } from '@app/audit';
import { AuthorizeController } from './authorize.controller';
import { AuthorizeSignInService } from './authorize-sign-in.service';
import { AuthorizeSessionStore } from './authorize-session.store';
import { ConnectedAppsService } from './connected-apps.service';
import { OAuthAuthorizationCodeEntity } from './entities/oauth-authorization-code.entity';
import { OAuthClientEntity } from './entities/oauth-client.entity';
import { OAuthConnectionEntity } from './entities/oauth-connection.entity';
import { OAuthGrantEntity } from './entities/oauth-grant.entity';
import { OAuthTokenEntity } from './entities/oauth-token.entity';
import { OAuthAccessTokenResolver } from './oauth-access-token.resolver';
import { OAuthAuthorizationService } from './oauth-authorization.service';
import { OAuthClientService } from './oauth-client.service';
import { OAuthTokenController } from './oauth-token.controller';
import { OAuthTokenService } from './oauth-token.service';

@Module({
  imports: [
    AccountModule,
    AuditModule,
    TypeOrmModule.forFeature([
      OAuthClientEntity,
      OAuthConnectionEntity,
      OAuthAuthorizationCodeEntity,
      OAuthGrantEntity,
      OAuthTokenEntity,
    ]),
  ],
  controllers: [AuthorizeController, OAuthTokenController],
  providers: [
    OAuthClientService,
    OAuthAuthorizationService,
    OAuthTokenService,
    OAuthAccessTokenResolver,
    AuthorizeSessionStore,
    AuthorizeSignInService,
    ConnectedAppsService,
  ],
  exports: [OAuthClientService, ConnectedAppsService],
})
export class OAuthModule {}
