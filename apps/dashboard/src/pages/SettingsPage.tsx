import QRCode from 'qrcode';
import { useEffect, useState, type FormEvent } from 'react';
import { useAccount, useAlertSettings, useReminderSettings, useSaveAlertSettings, useSaveReminderSettings, useUpdateBranding } from '../api/account';
import { useApprovalSettings, useSaveApprovalSettings } from '../api/approvals';
import { ApiFailure } from '../api/http';
import { useConnectedApps, useRevokeConnectedApp } from '../api/connected-apps';
import { useChangePassword, useConfirmTotp, useDisableTotp, useStartTotp } from '../api/security';
import { useFxRates } from '../api/fx';
import { useHasScope, useSession } from '../api/session';
import { useWallets } from '../api/wallet';
import { ConfirmButton } from '../components/Confirm';
import { Field } from '../components/Field';
import { fieldIssue, FormError } from '../components/FormError';
import { merchantIssue } from '../format/api-errors';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { supportedCurrencies } from '../format/currencies';
import { formatCents } from '../format/money';
import { parseMajorUnits } from '../format/parse-money';

export function SettingsPage() {
  const mayBrand = useHasScope('account:write');
  const mayDisconnect = useHasScope('connected_apps:manage');
  return (
    <>
      <h1>Settings</h1>
      {mayBrand && <BrandingSection />}
      {mayBrand && <AlertsSection />}
      {mayBrand && <RemindersSection />}
      {mayBrand && <ApprovalSection />}
      {mayDisconnect && <ConnectedAppsSection />}
      <PasswordSection />
      <TwoFactorSection />
    </>
  );
}

function BrandingSection() {
  const account = useAccount();
  const [draft, setDraft] = useState<{ senderName: string; logoUrl: string; brandColor: string } | null>(null);
  useEffect(() => {
    if (account.data && !draft) {
      setDraft({ senderName: account.data.senderName ?? '', logoUrl: account.data.logoUrl ?? '', brandColor: account.data.brandColor ?? '#1a56db' });
    }
  }, [account.data, draft]);
  const save = useUpdateBranding();
  if (account.isPending || !draft) return <StatusMessage kind="loading">Loading branding…</StatusMessage>;
  if (account.isError) return <StatusMessage kind="error">{account.error.message}</StatusMessage>;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ senderName: draft.senderName.trim() || null, logoUrl: draft.logoUrl.trim() || null, brandColor: draft.brandColor || null });
  };
  const sender = draft.senderName.trim() || account.data.name;
  return (
    <section aria-labelledby="branding">
      <h2 id="branding">Branding</h2>
      <div className="branding">
        <form onSubmit={submit} className="stack">
          <Field label="Sender name" value={draft.senderName} maxLength={100} onChange={(e) => setDraft({ ...draft, senderName: e.target.value })} {...fieldIssue(save.error, 'senderName')} />
          <Field label="Logo URL (https)" type="url" value={draft.logoUrl} onChange={(e) => setDraft({ ...draft, logoUrl: e.target.value })} {...fieldIssue(save.error, 'logoUrl')} />
          <Field label="Brand colour" type="color" value={draft.brandColor} onChange={(e) => setDraft({ ...draft, brandColor: e.target.value })} {...fieldIssue(save.error, 'brandColor')} />
          <FormError error={save.error} labels={{ senderName: 'Sender name', logoUrl: 'Logo URL (https)', brandColor: 'Brand colour' }} />
          <button type="submit" disabled={save.isPending}>
            Save branding
          </button>
          {save.isSuccess && <span role="status">Branding saved.</span>}
        </form>
        <BrandingPreview sender={sender} logoUrl={draft.logoUrl.trim()} color={draft.brandColor} />
      </div>
    </section>
  );
}

/**
 * Low-balance alerts (docs/alerts.md): a threshold per currency the account may hold, in major
 * units; an empty field is no alert for that currency.
 */
function AlertsSection() {
  const settings = useAlertSettings();
  const wallets = useWallets();
  const rates = useFxRates(true);
  const save = useSaveAlertSettings();
  const [draft, setDraft] = useState<Record<string, string> | null>(null);
  const [invalid, setInvalid] = useState<string | null>(null);
  useEffect(() => {
    if (settings.data && !draft) {
      setDraft(Object.fromEntries(settings.data.lowBalance.map((entry) => [entry.currency, String(entry.thresholdCents / 100)])));
    }
  }, [settings.data, draft]);
  if (settings.isPending || wallets.isPending || !draft) return <StatusMessage kind="loading">Loading alerts…</StatusMessage>;
  if (settings.isError) return <StatusMessage kind="error">{settings.error.message}</StatusMessage>;
  // The primary currency first, as the wallet page lists them; a stored threshold is always shown.
  const currencies = [...new Set([...supportedCurrencies(wallets.data ?? [], rates.data ?? []), ...settings.data.lowBalance.map((e) => e.currency)])];
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const entries: { currency: string; thresholdCents: number }[] = [];
    for (const currency of currencies) {
      const text = (draft[currency] ?? '').trim();
      if (!text) continue;
      const cents = parseMajorUnits(text);
      if (cents === null || cents < 1) {
        setInvalid(`${currency}: enter an amount such as 500 or 500.00, or leave it empty for no alert.`);
        return;
      }
      entries.push({ currency, thresholdCents: cents });
    }
    setInvalid(null);
    save.mutate(entries);
  };
  return (
    <section aria-labelledby="alerts">
      <h2 id="alerts">Low-balance alerts</h2>
      <p>
        When a wallet’s available balance falls below its amount, the account’s owners and admins get an e-mail and webhook event{' '}
        <code>wallet.low_balance</code> is sent, at most once a day per wallet. Leave a field empty for no alert.
      </p>
      <form onSubmit={submit} className="stack" aria-label="Low-balance alerts">
        {currencies.map((currency) => {
          const stored = settings.data.lowBalance.find((e) => e.currency === currency);
          return (
            <Field
              key={currency}
              label={`Alert below (${currency})`}
              inputMode="decimal"
              value={draft[currency] ?? ''}
              onChange={(e) => setDraft({ ...draft, [currency]: e.target.value })}
              hint={stored ? `Now: below ${formatCents(stored.thresholdCents, currency)}` : 'No alert'}
            />
          );
        })}
        {invalid && (
          <p role="alert" className="field-error">
            {invalid}
          </p>
        )}
        <FormError error={save.error} />
        <button type="submit" disabled={save.isPending}>
          Save alerts
        </button>
        {save.isSuccess && !invalid && <span role="status">Alerts saved.</span>}
      </form>
    </section>
  );
}

/**
 * Reward reminders (docs/delivery.md, Reminders): up to three day counts after delivery, written as
 * "3, 10", and one before expiry; empty fields: no reminders of that kind. The service checks the
 * ranges and the order; its issues are shown beside the fields.
 */
function RemindersSection() {
  const settings = useReminderSettings();
  const save = useSaveReminderSettings();
  const [draft, setDraft] = useState<{ afterDays: string; beforeExpiryDays: string } | null>(null);
  const [invalid, setInvalid] = useState<string | null>(null);
  useEffect(() => {
    if (settings.data && !draft) {
      setDraft({ afterDays: settings.data.afterDays.join(', '), beforeExpiryDays: settings.data.beforeExpiryDays?.toString() ?? '' });
    }
  }, [settings.data, draft]);
  if (settings.isPending || !draft) return <StatusMessage kind="loading">Loading reminders…</StatusMessage>;
  if (settings.isError) return <StatusMessage kind="error">{settings.error.message}</StatusMessage>;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parts = draft.afterDays.split(/[\s,]+/).filter(Boolean);
    const before = draft.beforeExpiryDays.trim();
    if (parts.some((part) => !/^\d+$/.test(part)) || (before && !/^\d+$/.test(before))) {
      setInvalid('Enter whole numbers of days, such as 3, 10 after delivery and 2 before expiry, or leave a field empty.');
      return;
    }
    setInvalid(null);
    save.mutate({ afterDays: parts.map(Number), beforeExpiryDays: before ? Number(before) : null });
  };
  // `reminderSettings.afterDays` or one of its values (`.1`: not above the one before it): shown beside the field.
  const afterIssues = save.error instanceof ApiFailure ? save.error.issues.filter((issue) => issue.path.startsWith('reminderSettings.afterDays')) : [];
  const stored = settings.data;
  return (
    <section aria-labelledby="reminders">
      <h2 id="reminders">Reminders</h2>
      <p>
        Recipients who have not used all of a reward get a reminder e-mail with the same link: some days after it was sent, and some days
        before it expires. Each is sent once, never after the reward is used up, cancelled or expired. A send can opt out with{' '}
        <code>reminders: false</code>.
      </p>
      <form onSubmit={submit} className="stack" aria-label="Reminders">
        <Field
          label="Days after sending"
          inputMode="numeric"
          value={draft.afterDays}
          onChange={(e) => setDraft({ ...draft, afterDays: e.target.value })}
          hint={`Up to 3 numbers from 1 to 90, smallest first, e.g. 3, 10. Now: ${stored.afterDays.length ? stored.afterDays.join(', ') : 'none'}`}
          error={afterIssues[0] && merchantIssue(afterIssues[0].message, afterIssues[0].path)}
          data-issue-path={afterIssues[0]?.path ?? 'reminderSettings.afterDays'}
        />
        <Field
          label="Days before expiry"
          inputMode="numeric"
          value={draft.beforeExpiryDays}
          onChange={(e) => setDraft({ ...draft, beforeExpiryDays: e.target.value })}
          hint={`1 to 30; for rewards with an expiry date. Now: ${stored.beforeExpiryDays ?? 'none'}`}
          {...fieldIssue(save.error, 'reminderSettings.beforeExpiryDays')}
        />
        {invalid && (
          <p role="alert" className="field-error">
            {invalid}
          </p>
        )}
        <FormError error={save.error} labels={{ 'reminderSettings.beforeExpiryDays': 'Days before expiry', ...Object.fromEntries(afterIssues.map((issue) => [issue.path, 'Days after sending'])) }} />
        <button type="submit" disabled={save.isPending}>
          Save reminders
        </button>
        {save.isSuccess && !invalid && <span role="status">Reminders saved.</span>}
      </form>
    </section>
  );
}

/** What recipients see: the e-mail's header and the redemption page's, with the draft applied before saving. */
/**
 * The approval threshold (docs/controls.md, Approvals), in the primary currency's major units; an
 * empty field: no send needs approval.
 */
function ApprovalSection() {
  const account = useAccount();
  const settings = useApprovalSettings();
  const save = useSaveApprovalSettings();
  const [draft, setDraft] = useState<string | null>(null);
  const [invalid, setInvalid] = useState<string | null>(null);
  useEffect(() => {
    if (settings.data && draft === null) setDraft(settings.data.thresholdCents === null ? '' : String(settings.data.thresholdCents / 100));
  }, [settings.data, draft]);
  if (settings.isPending || account.isPending || draft === null) return <StatusMessage kind="loading">Loading approvals…</StatusMessage>;
  if (settings.isError) return <StatusMessage kind="error">{settings.error.message}</StatusMessage>;
  const primary = account.data?.currency ?? 'USD';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const text = draft.trim();
    if (!text) {
      setInvalid(null);
      save.mutate(null);
      return;
    }
    const cents = parseMajorUnits(text);
    if (cents === null || cents < 1 || cents > 100_000_000) {
      setInvalid('Enter an amount such as 500 or 500.00 (at most 1,000,000), or leave it empty so no send needs approval.');
      return;
    }
    setInvalid(null);
    save.mutate(cents);
  };
  const stored = settings.data.thresholdCents;
  return (
    <section aria-labelledby="approvals">
      <h2 id="approvals">Approvals</h2>
      <p>
        A send worth this much or more (other currencies at the current rate), from the dashboard, an API key or a connected app, waits
        with its value held until an admin or owner other than its sender approves it on the Approvals page. Leave it empty so no send
        needs approval.
      </p>
      <form onSubmit={submit} className="stack" aria-label="Approval threshold">
        <Field
          label={`Approval needed from (${primary})`}
          inputMode="decimal"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          hint={stored === null ? 'No send needs approval' : `Now: sends of ${formatCents(stored, primary)} or more`}
          {...fieldIssue(save.error, 'approvalSettings.thresholdCents')}
        />
        {invalid && (
          <p role="alert" className="field-error">
            {invalid}
          </p>
        )}
        <FormError error={save.error} labels={{ 'approvalSettings.thresholdCents': `Approval needed from (${primary})` }} />
        <button type="submit" disabled={save.isPending}>
          Save threshold
        </button>
        {save.isSuccess && !invalid && <span role="status">Approval threshold saved.</span>}
      </form>
    </section>
  );
}

function BrandingPreview({ sender, logoUrl, color }: { sender: string; logoUrl: string; color: string }) {
  const [logoFailed, setLogoFailed] = useState(false);
  useEffect(() => setLogoFailed(false), [logoUrl]);
  const initials = sender
    .split(/\s+/)
    .map((word) => word[0] ?? '')
    .join('')
    .slice(0, 2)
    .toUpperCase();
  const logo =
    logoUrl && !logoFailed ? (
      <img src={logoUrl} alt={`${sender} logo`} className="preview-logo" onError={() => setLogoFailed(true)} />
    ) : (
      <span className="preview-initials" style={{ background: color }} aria-hidden="true">
        {initials}
      </span>
    );
  return (
    <div className="previews" aria-label="Preview">
      <figure>
        <figcaption>E-mail</figcaption>
        <div className="preview-mail">
          <p className="preview-from">
            From: <strong>{sender}</strong>
          </p>
          <div className="preview-head" style={{ borderTopColor: color }}>
            {logo}
            <strong>{sender} sent you a reward</strong>
          </div>
          <p>
            <span className="preview-button" style={{ background: color }}>
              Open your reward
            </span>
          </p>
        </div>
      </figure>
      <figure>
        <figcaption>Redemption page</figcaption>
        <div className="preview-page">
          <div className="preview-bar" style={{ background: color }}>
            {logo}
            <span>{sender}</span>
          </div>
          <p>Choose your gift cards</p>
        </div>
      </figure>
    </div>
  );
}

function ConnectedAppsSection() {
  const apps = useConnectedApps();
  const revoke = useRevokeConnectedApp();
  return (
    <section aria-labelledby="connected-apps">
      <h2 id="connected-apps">Connected apps</h2>
      {apps.isPending && <StatusMessage kind="loading">Loading connected apps…</StatusMessage>}
      {apps.isError && <StatusMessage kind="error">{apps.error.message}</StatusMessage>}
      {apps.data && apps.data.connectedApps.length === 0 && <StatusMessage kind="empty">No app is connected.</StatusMessage>}
      <ul className="cards">
        {apps.data?.connectedApps.map((app) => (
          <li key={app.id}>
            <strong>{app.appName}</strong> · {app.scopes.join(' ')} · connected <Time value={app.createdAt} />{' '}
            <ConfirmButton danger label="Revoke" question={`${app.appName} loses access at once.`} onConfirm={() => revoke.mutate(app.id)} />
          </li>
        ))}
      </ul>
      <FormError error={revoke.error} />
    </section>
  );
}

function PasswordSection() {
  const change = useChangePassword();
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    change.mutate({ currentPassword: String(form.get('currentPassword') ?? ''), newPassword: String(form.get('newPassword') ?? '') });
    event.currentTarget.reset();
  };
  return (
    <section aria-labelledby="password">
      <h2 id="password">Password</h2>
      <form onSubmit={submit} className="stack">
        <Field label="Current password" name="currentPassword" type="password" autoComplete="current-password" required />
        <Field
          label="New password"
          name="newPassword"
          type="password"
          autoComplete="new-password"
          minLength={12}
          required
          hint="At least 12 characters; common passwords are refused."
          {...fieldIssue(change.error, 'newPassword')}
        />
        <FormError error={change.error} labels={{ newPassword: 'New password' }} />
        <button type="submit" disabled={change.isPending}>
          Change password
        </button>
        {change.isSuccess && <span role="status">Password changed. Your other sessions were signed out.</span>}
      </form>
    </section>
  );
}

function TwoFactorSection() {
  const [pending, setPending] = useState<{ secret: string; otpauthUrl: string; qr: string } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  // The QR code is drawn here, in the browser: the secret never leaves for an outside service.
  const start = useStartTotp(async (answer) => setPending({ ...answer, qr: await QRCode.toDataURL(answer.otpauthUrl, { margin: 1, width: 200 }) }));
  const confirm = useConfirmTotp(() => {
    setPending(null);
    setDone('Two-factor sign-in is on: you will be asked for a code when you sign in.');
  });
  const disable = useDisableTotp(() => setDone('Two-factor sign-in is off.'));
  const enabled = useSession().data?.user.twoFactorEnabled ?? false;
  const codeOf = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const code = String(new FormData(event.currentTarget).get('code') ?? '').trim();
    event.currentTarget.reset();
    return code;
  };
  return (
    <section aria-labelledby="two-factor">
      <h2 id="two-factor">Two-factor sign-in</h2>
      <p id="two-factor-state">
        Two-factor sign-in is <strong>{enabled ? 'on' : 'off'}</strong>
        {enabled ? ': signing in asks for a code from your authenticator app.' : ': signing in asks for your password only.'}
      </p>
      {done && <p role="status">{done}</p>}
      {enabled ? null : !pending ? (
        <div className="actions">
          <button type="button" onClick={() => start.mutate()} disabled={start.isPending}>
            Set up two-factor sign-in
          </button>
          <FormError error={start.error} />
        </div>
      ) : (
        <form onSubmit={(e) => confirm.mutate(codeOf(e))} className="stack">
          <p>Scan this code with an authenticator app, or type the secret, then enter the 6-digit code it shows.</p>
          <img src={pending.qr} width={200} height={200} alt="QR code for your authenticator app" />
          <p>
            Secret: <code>{pending.secret}</code>
          </p>
          <Field label="Code from the app" name="code" inputMode="numeric" autoComplete="one-time-code" required {...fieldIssue(confirm.error, 'code')} />
          <FormError error={confirm.error} labels={{ code: 'Code from the app' }} />
          <button type="submit" disabled={confirm.isPending}>
            Turn on two-factor sign-in
          </button>
        </form>
      )}
      {enabled && (
        <form onSubmit={(e) => disable.mutate(codeOf(e))} className="inline-form" aria-label="Turn off two-factor sign-in">
          <Field label="Code to turn two-factor sign-in off" name="code" inputMode="numeric" autoComplete="one-time-code" {...fieldIssue(disable.error, 'code')} />
          <button type="submit" className="secondary" disabled={disable.isPending}>
            Turn off two-factor sign-in
          </button>
          <FormError error={disable.error} labels={{ code: 'Code to turn two-factor sign-in off' }} />
        </form>
      )}
    </section>
  );
}
