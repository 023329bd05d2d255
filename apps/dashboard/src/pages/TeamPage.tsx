import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useInvitations, useMembers } from '../api/dashboard';
import { dash, invalidate, unwrap } from '../api/http';
import { currentRole, useSession, type Role } from '../api/session';
import { ConfirmButton } from '../components/Confirm';
import { Field } from '../components/Field';
import { FormError, issueOf } from '../components/FormError';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';

const ROLES: Role[] = ['viewer', 'developer', 'admin', 'owner'];

export function TeamPage() {
  const session = useSession();
  const me = session.data!;
  const myRole = currentRole(me);
  const members = useMembers();
  const invitations = useInvitations();
  const client = useQueryClient();
  const [role, setRole] = useState<Role>('viewer');
  // Only an owner may make, demote or remove an owner.
  const assignable = myRole === 'owner' ? ROLES : ROLES.filter((r) => r !== 'owner');
  const refresh = () => invalidate(client, 'members', 'invitations');

  const invite = useMutation({
    mutationFn: async (body: { email: string; role: Role }) => unwrap(await dash.POST('/dashboard/api/invitations', { body })),
    onSuccess: refresh,
  });
  const revoke = useMutation({ mutationFn: async (id: string) => unwrap(await dash.DELETE('/dashboard/api/invitations/{invitation}', { params: { path: { invitation: id } } })), onSuccess: refresh });
  const change = useMutation({
    mutationFn: async ({ userId, role: next }: { userId: string; role: Role }) =>
      unwrap(await dash.PATCH('/dashboard/api/members/{userId}', { params: { path: { userId } }, body: { role: next } })),
    onSuccess: refresh,
  });
  const remove = useMutation({ mutationFn: async (userId: string) => unwrap(await dash.DELETE('/dashboard/api/members/{userId}', { params: { path: { userId } } })), onSuccess: refresh });

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
        <Field label="E-mail to invite" name="email" type="email" required error={issueOf(invite.error, 'email')} />
        <div className="field">
          <label htmlFor="invite-role">Role</label>
          <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {assignable.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </div>
        <button type="submit" disabled={invite.isPending}>
          Invite
        </button>
        {invite.isSuccess && <span role="status">Invitation sent to {invite.data.invitation.email}.</span>}
        <FormError error={invite.error} fields={['email']} />
      </form>
      <h2>Members</h2>
      {members.isPending && <StatusMessage kind="loading">Loading members…</StatusMessage>}
      {members.isError && <StatusMessage kind="error">{members.error.message}</StatusMessage>}
      {members.data && (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Table (scrolls sideways on narrow screens)">
          <table>
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Since</th>
                <th scope="col">Remove</th>
              </tr>
            </thead>
            <tbody>
              {members.data.members.map((m) => {
                const mayManage = m.userId !== me.user.id && (myRole === 'owner' || m.role !== 'owner');
                return (
                  <tr key={m.userId}>
                    <td>{m.email}</td>
                    <td>
                      {mayManage ? (
                        <select aria-label={`Role of ${m.email}`} value={m.role} onChange={(e) => change.mutate({ userId: m.userId, role: e.target.value as Role })}>
                          {assignable.map((r) => (
                            <option key={r}>{r}</option>
                          ))}
                        </select>
                      ) : (
                        m.role
                      )}
                    </td>
                    <td>
                      <Time value={m.createdAt} />
                    </td>
                    <td>{mayManage && <ConfirmButton danger label="Remove" question={`${m.email} loses access at once.`} onConfirm={() => remove.mutate(m.userId)} />}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
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
              <ConfirmButton danger label="Revoke" question="The link in the e-mail stops working." onConfirm={() => revoke.mutate(i.id)} />
            </li>
          ))}
        </ul>
      )}
      <FormError error={revoke.error} />
    </>
  );
}
