import type { Principal } from '@app/auth';

export const AUDIT_ACTOR_TYPES = ['user', 'api_key', 'oauth_app', 'operator'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/**
 * Who made a change, as the audit log names them. `label` is what a person reads in the log; for
 * an API key or an OAuth app it is completed from the key's name or the app's name when written.
 */
export interface AuditActor {
  type: AuditActorType;
  id: string | null;
  label: string | null;
  /** The OAuth grant behind a token, to find its app when the principal does not name it. */
  oauthGrantId?: string;
}

/** Changes made with the operator CLI: there is no credential, only whoever runs the command. */
export const OPERATOR_ACTOR: AuditActor = { type: 'operator', id: null, label: 'operator (CLI)' };

/** Where the operator CLI's changes come from: no credential and no client address. */
export const OPERATOR_ORIGIN: AuditOrigin = { actor: OPERATOR_ACTOR, ipAddress: null };

/** The actor behind a request's principal. */
export function auditActorOf(principal: Principal): AuditActor {
  switch (principal.credentialKind) {
    case 'api_key':
      return { type: 'api_key', id: principal.credentialId, label: null };
    case 'oauth_token':
      return { type: 'oauth_app', id: principal.oauthClientId ?? null, label: null, oauthGrantId: principal.credentialId };
    case 'session':
      return { type: 'user', id: principal.user?.id ?? null, label: principal.user?.email ?? null };
  }
}

/** Where a change came from: the actor and the client's address. Controllers build it; services record it. */
export interface AuditOrigin {
  actor: AuditActor;
  ipAddress: string | null;
}
