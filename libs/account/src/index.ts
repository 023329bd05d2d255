// What other modules may use of account, and only that. The entities stay inside (the lib owns
// accounts, users, memberships, invitations, password resets and API keys: docs/architecture.md,
// Table ownership).
export { AccountModule } from './account.module';
export { AccountService } from './account.service';
export type { ReminderSettings } from './account.service';
export { ApiKeyService, heldScopes } from './api-key.service';
export type { StoredApiKey } from './api-key.service';
export { MerchantService } from './merchant.service';
export { UserDirectory } from './user-directory.service';
export type { MemberAccount } from './user-directory.service';
export { TotpService, TOTP_SEALED_COLUMNS } from './totp.service';
export { PasswordHasher, PASSWORD_KDF } from './password-hasher';
export type { PasswordKdf } from './password-hasher';
export { IdentityRepository } from './identity/identity.repository';
export { TeamService, userActor } from './identity/team.service';
export type { IdentityActor } from './identity/team.service';
export { InvitationService } from './identity/invitation.service';
export type { Joined, NewInvitation } from './identity/invitation.service';
export { API_KEY_SCOPES } from './entities/api-key.entity';
export type { ApiKeyScope } from './entities/api-key.entity';
export type { MembershipRole } from './entities/membership.entity';
