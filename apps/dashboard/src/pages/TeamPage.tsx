import { useState, type FormEvent } from 'react';
import { currentRole, useSession, type Role } from '../api/session';
import { ROLES, useInvitations, useMembers, useTeamActions } from '../api/team';
import { ConfirmButton } from '../components/Confirm';
import { DataTable } from '../components/DataTable';
import { Field } from '../components/Field';
import { fieldIssue, FormError } from '../components/FormError';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';

/** What each role may do, in the words of the scopes it holds (docs/dashboard.md, Roles). */
export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  viewer: 'Sees rewards, the wallet, the catalog and webhooks; changes nothing.',
  developer: 'A viewer who also sends, cancels and resends rewards, manages webhooks and makes API keys.',
  admin: 'A developer who also tops up the wallet, changes branding, rules and settings, manages the team and reads the audit log.',
  owner: 'Everything an admin may do, and also invites, promotes, demotes or removes owners.',
};

export function TeamPage() {
  const session = useSession();
  const me = session.data!;
  const myRole = currentRole(me);
  const members = useMembers();
  const invitations = useInvitations();
  const [role, setRole] = useState<Role>('viewer');
  // Only an owner may make, demote or remove an owner: a rule of the role, which no scope carries.
  const assignable = myRole === 'owner' ? ROLES : ROLES.filter((r) => r !== 'owner');
  const { invite, revokeInvitation: revoke, resendInvitation: resend, changeRole: change, remove } = useTeamActions();
  const mayManage = (m: { userId: string; role: Role }) => m.userId !== me.user.id && (myRole === 'owner' || m.role !== 'owner');

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    invite.mutate({ email: String(form.get('email') ?? '').trim(), role });
    event.currentTarget.reset();
  };

  return (
    <>
      <h1>Team</h1>
      <form onSubmit={submit} className="inline-form" aria-label="Invite a member">
        <Field label="E-mail to invite" name="email" type="email" required {...fieldIssue(invite.error, 'email')} />
        <div className="field">
          <label htmlFor="invite-role">Role</label>
          <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)} aria-describedby="invite-role-description">
            {assignable.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
          <small id="invite-role-description">{ROLE_DESCRIPTIONS[role]}</small>
        </div>
        <button type="submit" disabled={invite.isPending}>
          Invite
        </button>
        {invite.isSuccess && <span role="status">Invitation sent to {invite.data.invitation.email}.</span>}
        <FormError error={invite.error} labels={{ email: 'E-mail to invite' }} />
      </form>
      <details className="roles">
        <summary>What each role may do</summary>
        <dl className="facts">
          {ROLES.map((r) => (
            <div key={r}>
              <dt>{r}</dt>
              <dd>{ROLE_DESCRIPTIONS[r]}</dd>
            </div>
          ))}
        </dl>
      </details>
      <h2>Members</h2>
      {members.isPending && <StatusMessage kind="loading">Loading members…</StatusMessage>}
      {members.isError && <StatusMessage kind="error">{members.error.message}</StatusMessage>}
      {members.data && (
        <DataTable
          rows={members.data.members}
          rowKey={(m) => m.userId}
          columns={[
            { header: 'E-mail', cell: (m) => m.email },
            {
              header: 'Role',
              cell: (m) =>
                mayManage(m) ? (
                  <select aria-label={`Role of ${m.email}`} value={m.role} onChange={(e) => change.mutate({ userId: m.userId, role: e.target.value as Role })}>
                    {assignable.map((r) => (
                      <option key={r}>{r}</option>
                    ))}
                  </select>
                ) : (
                  m.role
                ),
            },
            { header: 'Since', cell: (m) => <Time value={m.createdAt} /> },
            { header: 'Remove', cell: (m) => mayManage(m) && <ConfirmButton danger label="Remove" question={`${m.email} loses access at once.`} onConfirm={() => remove.mutate(m.userId)} /> },
          ]}
        />
      )}
      <FormError error={change.error ?? remove.error} />
      <h2>Invitations</h2>
      {invitations.isPending && <StatusMessage kind="loading">Loading invitations…</StatusMessage>}
      {invitations.isError && <StatusMessage kind="error">{invitations.error.message}</StatusMessage>}
      {invitations.data && invitations.data.invitations.length === 0 && <StatusMessage kind="empty">No open invitations.</StatusMessage>}
      {invitations.data && invitations.data.invitations.length > 0 && (
        <ul className="cards">
          {invitations.data.invitations.map((i) => (
            <li key={i.id}>
              {i.email} as {i.role}, expires <Time value={i.expiresAt} />{' '}
              <ConfirmButton
                label="Resend invitation"
                question={`E-mail ${i.email} a new link valid 7 days? The earlier link stops working.`}
                onConfirm={() => resend.mutate(i.id)}
                disabled={resend.isPending}
              />{' '}
              <ConfirmButton danger label="Revoke" question="The link in the e-mail stops working." onConfirm={() => revoke.mutate(i.id)} />
            </li>
          ))}
        </ul>
      )}
      {resend.isSuccess && <p role="status">Invitation sent again to {resend.data.invitation.email}.</p>}
      <FormError error={revoke.error ?? resend.error} />
    </>
  );
}
