import { useState, type FormEvent } from 'react';
import { useAccount } from '../api/account';
import { useApiKeys, useCreateApiKey, useRevokeApiKey, type ApiKey, type ApiKeyScope } from '../api/api-keys';
import { ConfirmButton } from '../components/Confirm';
import { DataTable } from '../components/DataTable';
import { Field } from '../components/Field';
import { fieldIssue, FormError } from '../components/FormError';
import { SecretOnce } from '../components/SecretOnce';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { formatCents } from '../format/money';
import { parseMajorUnits } from '../format/parse-money';

export function DevelopersPage() {
  const keys = useApiKeys();
  const account = useAccount();
  const currency = account.data?.currency ?? 'USD';
  const [secret, setSecret] = useState<string | null>(null);
  const [scopes, setScopes] = useState<ApiKeyScope[]>(['read']);
  const create = useCreateApiKey(setSecret);
  const revoke = useRevokeApiKey();
  const [limitError, setLimitError] = useState<string | null>(null);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    // Spending limits (docs/controls.md, Key limits): in the primary currency's major units; empty is no limit.
    const limit = (field: string, what: string): number | null | undefined => {
      const text = String(form.get(field) ?? '').trim();
      if (!text) return null;
      const cents = parseMajorUnits(text);
      if (cents === null || cents < 1 || cents > 100_000_000) {
        setLimitError(`${what}: enter an amount such as 50 or 50.00 (at most 1,000,000), or leave it empty for no limit.`);
        return undefined;
      }
      return cents;
    };
    const maxRewardCents = limit('maxReward', 'Largest single send');
    const dailyLimitCents = limit('dailyLimit', 'Daily limit');
    if (maxRewardCents === undefined || dailyLimitCents === undefined) return;
    setLimitError(null);
    const limits = maxRewardCents === null && dailyLimitCents === null ? undefined : { maxRewardCents, dailyLimitCents };
    create.mutate({ name: String(form.get('name') ?? '').trim(), scopes, ...(limits ? { limits } : {}) });
    event.currentTarget.reset();
  };
  const toggle = (scope: ApiKeyScope, on: boolean) => setScopes((now) => (on ? [...new Set([...now, scope])] : now.filter((s) => s !== scope)));

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
        <Field label="Key name" name="name" required maxLength={100} {...fieldIssue(create.error, 'name')} />
        <fieldset>
          <legend>Scopes</legend>
          <label>
            <input type="checkbox" checked={scopes.includes('read')} onChange={(e) => toggle('read', e.target.checked)} /> read
          </label>
          <label>
            <input type="checkbox" checked={scopes.includes('write')} onChange={(e) => toggle('write', e.target.checked)} /> write
          </label>
        </fieldset>
        <fieldset>
          <legend>Spending limits (optional, in {currency})</legend>
          <Field
            label={`Largest single send (${currency})`}
            name="maxReward"
            inputMode="decimal"
            hint="A send through this key worth more is refused."
            {...fieldIssue(create.error, 'limits.maxRewardCents')}
          />
          <Field
            label={`Daily limit, last 24 hours (${currency})`}
            name="dailyLimit"
            inputMode="decimal"
            hint="Sends through this key over the last 24 hours may add up to this at most; other currencies count at the current rate."
            {...fieldIssue(create.error, 'limits.dailyLimitCents')}
          />
        </fieldset>
        {limitError && (
          <p role="alert" className="field-error">
            {limitError}
          </p>
        )}
        <FormError error={create.error} labels={{ name: 'Key name', 'limits.maxRewardCents': `Largest single send (${currency})`, 'limits.dailyLimitCents': `Daily limit, last 24 hours (${currency})` }} />
        <button type="submit" disabled={create.isPending || scopes.length === 0}>
          Create key
        </button>
      </form>
      <h2>API keys</h2>
      {keys.isPending && <StatusMessage kind="loading">Loading keys…</StatusMessage>}
      {keys.isError && <StatusMessage kind="error">{keys.error.message}</StatusMessage>}
      {keys.data && keys.data.apiKeys.length === 0 && <StatusMessage kind="empty">No API keys yet.</StatusMessage>}
      {keys.data && keys.data.apiKeys.length > 0 && (
        <DataTable
          rows={keys.data.apiKeys}
          rowKey={(key) => key.id}
          columns={[
            { header: 'Name', cell: (key) => key.name },
            { header: 'Key', cell: (key) => <code>sk_…{key.last4}</code> },
            { header: 'Scopes', cell: scopesText },
            { header: 'Limits', cell: (key) => limitsText(key, currency) },
            { header: 'Created by', cell: (key) => (key.createdBy ? (key.createdBy.email ?? key.createdBy.userId) : 'Operator (CLI)') },
            { header: 'Created', cell: (key) => <Time value={key.createdAt} /> },
            { header: 'Last used', cell: (key) => <Time value={key.lastUsedAt} /> },
            {
              header: 'Status',
              cell: (key) =>
                key.revokedAt ? (
                  <>
                    Revoked <Time value={key.revokedAt} />
                  </>
                ) : (
                  <ConfirmButton danger label="Revoke" question={`Requests with “${key.name}” stop working at once.`} onConfirm={() => revoke.mutate(key.id)} />
                ),
            },
          ]}
        />
      )}
      <FormError error={revoke.error} />
    </>
  );
}

/** A key's spending limits, e.g. "$50.00 a send · $200.00 a day", or "None". */
function limitsText(key: ApiKey, currency: string): string {
  if (!key.limits) return 'None';
  const parts = [
    key.limits.maxRewardCents !== null ? `${formatCents(key.limits.maxRewardCents, currency)} a send` : null,
    key.limits.dailyLimitCents !== null ? `${formatCents(key.limits.dailyLimitCents, currency)} a day` : null,
  ].filter((part) => part !== null);
  return parts.join(' · ');
}

/** A member's `write` key writes only what its creator's role allowed: say which. */
function scopesText(key: ApiKey): string {
  if (!key.createdBy) return key.scopes.join(', ');
  const writes = key.grantedScopes.filter((scope) => scope.endsWith(':write')).map((scope) => scope.slice(0, -':write'.length));
  return key.scopes.map((scope) => (scope === 'write' ? `write (${writes.join(', ')})` : scope)).join(', ');
}
