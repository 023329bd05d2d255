import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useApiKeys } from '../api/dashboard';
import { dash, unwrap } from '../api/http';
import { ConfirmButton } from '../components/Confirm';
import { Field } from '../components/Field';
import { FormError, issueOf } from '../components/FormError';
import { SecretOnce } from '../components/SecretOnce';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';

export function DevelopersPage() {
  const keys = useApiKeys();
  const client = useQueryClient();
  const [secret, setSecret] = useState<string | null>(null);
  const [scopes, setScopes] = useState<('read' | 'write')[]>(['read']);
  const create = useMutation({
    mutationFn: async (body: { name: string; scopes: ('read' | 'write')[] }) => unwrap(await dash.POST('/dashboard/api/api-keys', { body })),
    onSuccess: (answer) => {
      setSecret(answer.secret);
      void client.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: async (id: string) => unwrap(await dash.DELETE('/dashboard/api/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ['api-keys'] }),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    create.mutate({ name: String(form.get('name') ?? '').trim(), scopes });
    event.currentTarget.reset();
  };
  const toggle = (scope: 'read' | 'write', on: boolean) => setScopes((now) => (on ? [...new Set([...now, scope])] : now.filter((s) => s !== scope)));

  return (
    <>
      <h1>Developers</h1>
      <p>
        The API reference is at <a href="/docs">/docs</a>. A key acts on this account with the scopes you give it, never with more
        than your own role allows; keep it on your servers. Keys you made are revoked if you leave the account, and those your new
        role no longer covers if your role changes.
      </p>
      {secret && <SecretOnce label="Your new API key" value={secret} onDone={() => setSecret(null)} />}
      <form onSubmit={submit} className="stack" aria-label="Create an API key">
        <h2>Create an API key</h2>
        <Field label="Key name" name="name" required maxLength={100} error={issueOf(create.error, 'name')} />
        <fieldset>
          <legend>Scopes</legend>
          <label>
            <input type="checkbox" checked={scopes.includes('read')} onChange={(e) => toggle('read', e.target.checked)} /> read
          </label>
          <label>
            <input type="checkbox" checked={scopes.includes('write')} onChange={(e) => toggle('write', e.target.checked)} /> write
          </label>
        </fieldset>
        <FormError error={create.error} fields={['name']} />
        <button type="submit" disabled={create.isPending || scopes.length === 0}>
          Create key
        </button>
      </form>
      <h2>API keys</h2>
      {keys.isPending && <StatusMessage kind="loading">Loading keys…</StatusMessage>}
      {keys.isError && <StatusMessage kind="error">{keys.error.message}</StatusMessage>}
      {keys.data && keys.data.apiKeys.length === 0 && <StatusMessage kind="empty">No API keys yet.</StatusMessage>}
      {keys.data && keys.data.apiKeys.length > 0 && (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Table (scrolls sideways on narrow screens)">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created by</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.apiKeys.map((key) => (
                <tr key={key.id}>
                  <td>{key.name}</td>
                  <td>
                    <code>sk_…{key.last4}</code>
                  </td>
                  <td>{scopesText(key)}</td>
                  <td>{key.createdBy ? (key.createdBy.email ?? key.createdBy.userId) : 'Operator (CLI)'}</td>
                  <td>
                    <Time value={key.createdAt} />
                  </td>
                  <td>
                    <Time value={key.lastUsedAt} />
                  </td>
                  <td>
                    {key.revokedAt ? (
                      <>
                        Revoked <Time value={key.revokedAt} />
                      </>
                    ) : (
                      <ConfirmButton danger label="Revoke" question={`Requests with “${key.name}” stop working at once.`} onConfirm={() => revoke.mutate(key.id)} />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <FormError error={revoke.error} />
    </>
  );
}

/** A member's `write` key writes only what its creator's role allowed: say which. */
function scopesText(key: { scopes: string[]; grantedScopes: string[]; createdBy: unknown }): string {
  if (!key.createdBy) return key.scopes.join(', ');
  const writes = key.grantedScopes.filter((scope) => scope.endsWith(':write')).map((scope) => scope.slice(0, -':write'.length));
  return key.scopes.map((scope) => (scope === 'write' ? `write (${writes.join(', ')})` : scope)).join(', ');
}
