import type { IdentityActor } from '@app/account';
import type { Principal } from '@app/auth';

/** Who did it and from where, as the audit log records it (libs/account's `userActor` writes it). */
export type ActorContext = IdentityActor;

export function actorOf(principal: Principal, ipAddress: string | undefined): ActorContext {
  return { userId: principal.user!.id, email: principal.user!.email, ipAddress: ipAddress ?? null };
}
