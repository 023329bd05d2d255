import { Module } from '@nestjs/common';
import { AccountModule } from '@app/account';
import { AuditModule } from '@app/audit';
import { MailModule } from '@app/mail';
import { OAuthModule } from '@app/oauth';
import { ApiKeysController } from './api-keys.controller';
import { ConnectedAppsController } from './connected-apps.controller';
import { DashboardApiKeysService } from './dashboard-api-keys.service';
import { DashboardCookie } from './dashboard-cookie';
import { DashboardSessionController } from './dashboard-session.controller';
import { DashboardSessionService } from './dashboard-session.service';
import { InvitationsService } from './invitations.service';
import { MeController, PasswordResetController } from './own-security.controller';
import { PasswordService } from './password.service';
import { SessionCredentialResolver } from './session-credential.resolver';
import { InvitationsController, MembersController } from './team.controller';

/**
 * The dashboard-only API under /dashboard/api (docs/dashboard.md): sign-in sessions, the team,
 * API keys, connected apps and the person's own security. It also makes the session cookie a
 * credential on /v1, through SessionCredentialResolver.
 */
@Module({
  imports: [AccountModule, AuditModule, OAuthModule, MailModule],
  controllers: [
    DashboardSessionController,
    MembersController,
    InvitationsController,
    ApiKeysController,
    ConnectedAppsController,
    MeController,
    PasswordResetController,
  ],
  providers: [
    DashboardCookie,
    SessionCredentialResolver,
    DashboardSessionService,
    InvitationsService,
    DashboardApiKeysService,
    PasswordService,
  ],
})
export class DashboardModule {}
