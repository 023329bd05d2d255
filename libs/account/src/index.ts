// What other modules may use of account. The entities stay inside (the lib owns accounts, users,
// memberships, invitations, password resets and API keys: docs/architecture.md, Table ownership).
export * from './account.module';
export * from './account.service';
export * from './api-key.service';
export * from './merchant.service';
export * from './user-directory.service';
export * from './totp.service';
export * from './password-hasher';
export { IdentityRepository } from './identity/identity.repository';
export type { MemberRow, MembershipOfUser } from './identity/identity.repository';
export { TeamService, userActor } from './identity/team.service';
export type { IdentityActor, Member } from './identity/team.service';
export { InvitationService, INVITATION_TTL_SECONDS } from './identity/invitation.service';
export type { Invitation, InvitationPreview, Joined, NewInvitation } from './identity/invitation.service';
export { MEMBERSHIP_ROLES } from './entities/membership.entity';
export type { MembershipRole } from './entities/membership.entity';
export { API_KEY_SCOPES } from './entities/api-key.entity';
export type { ApiKeyScope } from './entities/api-key.entity';
export * from './dto/account.dto';
