import type { AuditEntry, Principal } from '@app/auth';

/** Who did it and from where, as the audit log records it. */
export interface ActorContext {
  userId: string;
  email: string;
  ipAddress: string | null;
}

export function actorOf(principal: Principal, ipAddress: string | undefined): ActorContext {
  return { userId: principal.user!.id, email: principal.user!.email, ipAddress: ipAddress ?? null };
}

export function userActor(actor: ActorContext): Pick<AuditEntry, 'actor' | 'ipAddress'> {
  return { actor: { type: 'user', id: actor.userId, label: actor.email }, ipAddress: actor.ipAddress };
}
