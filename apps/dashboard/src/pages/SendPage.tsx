import { useMemo, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useAccount } from '../api/account';
import { useApprovalSettings } from '../api/approvals';
import { itemAccepts, itemValueLabel, useCatalog, type CatalogItem } from '../api/catalog';
import { rateOf, useFxRates } from '../api/fx';
import { useIdempotencyKey } from '../api/idempotency';
import { LANGUAGE_NAMES, useSendReward, type CreateReward } from '../api/rewards';
import { useWallets, type Wallet } from '../api/wallet';
import { CardPicker } from '../components/CardPicker';
import { CheckboxList } from '../components/CheckboxList';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyCode } from '../components/CopyCode';
import { Field } from '../components/Field';
import { fieldIssue, FormError, issueOf, type FieldLabels } from '../components/FormError';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { fundedCents } from '../format/fx';
import { formatCents, formatTime } from '../format/money';
import { parseMajorUnits } from '../format/parse-money';
import { BulkSend } from './BulkSend';

export function SendPage() {
  const [type, setType] = useState<'FIXED' | 'CHOICE'>('FIXED');
  return (
    <>
      <h1>Send</h1>
      <fieldset className="segmented">
        <legend>Reward type</legend>
        <label>
          <input type="radio" name="type" checked={type === 'FIXED'} onChange={() => setType('FIXED')} /> One gift card (FIXED)
        </label>
        <label>
          <input type="radio" name="type" checked={type === 'CHOICE'} onChange={() => setType('CHOICE')} /> Recipient's choice (CHOICE)
        </label>
      </fieldset>
      <SendForm key={type} type={type} />
      <BulkSendForAccount />
    </>
  );
}

function BulkSendForAccount() {
  const account = useAccount();
  const catalog = useCatalog();
  return <BulkSend currency={account.data?.currency ?? 'USD'} brands={catalog.data} />;
}

function SendForm({ type }: { type: 'FIXED' | 'CHOICE' }) {
  const account = useAccount();
  const catalog = useCatalog();
  const [idempotencyKey, renewKey] = useIdempotencyKey();
  const [amount, setAmount] = useState('');
  const [item, setItem] = useState<CatalogItem | null>(null);
  const [brands, setBrands] = useState<string[]>([]);
  const [choiceCurrency, setChoiceCurrency] = useState<string | null>(null);
  const [funding, setFunding] = useState<string | null>(null);
  const [clientError, setClientError] = useState<string | null>(null);
  const [phoneError, setPhoneError] = useState<string | null>(null);
  /** The optional delivery time as typed (`datetime-local`: the browser's time zone); '' sends at once. */
  const [deliverLocal, setDeliverLocal] = useState('');
  /** The request the user is asked to confirm (docs/dashboard.md, Sending: nothing leaves without a last look). */
  const [pending, setPending] = useState<SendRequest | null>(null);
  const wallets = useWallets();
  const rates = useFxRates(true);
  const primary = account.data?.currency ?? 'USD';
  // The reward's currency (docs/currencies.md): a FIXED reward's is its card's, a CHOICE reward's is chosen here.
  const currency = type === 'FIXED' ? (item?.currencyCode ?? primary) : (choiceCurrency ?? primary);
  const valueCents = parseMajorUnits(amount);

  const currencies = useMemo(() => {
    const offered = new Set((catalog.data ?? []).flatMap((brand) => brand.items.map((i) => i.currencyCode)));
    return [primary, ...[...offered].filter((c) => c !== primary).sort()];
  }, [catalog.data, primary]);

  // A sent form is a finished submission: the next one gets a new key.
  const send = useSendReward(idempotencyKey, renewKey);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setClientError(null);
    const form = new FormData(event.currentTarget);
    if (valueCents === null) return setClientError('Enter an amount such as 25 or 25.50.');
    if (type === 'FIXED' && !item) return setClientError('Choose a gift card.');
    if (type === 'FIXED' && item && !itemAccepts(item, valueCents)) return setClientError(`This card takes ${itemValueLabel(item)}.`);
    const text = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    // The API takes E.164 only (docs/delivery.md, SMS): spaces, dashes and brackets people type are dropped first.
    const phone = text('phone')?.replace(/[\s().-]/g, '');
    setPhoneError(phone && !E164.test(phone) ? PHONE_FORMAT : null);
    if (phone && !E164.test(phone)) return;
    const expires = text('expiresAt');
    const fundingCurrency = String(form.get('fundingCurrency') ?? '') || undefined;
    const deliverAt = instantOf(deliverLocal);
    if (deliverLocal && !deliverAt) return setClientError('Enter the delivery date and time in full, or clear it to send now.');
    setPending({
      type,
      valueCents,
      recipient: {
        email: text('email') ?? '',
        firstName: text('firstName') ?? '',
        lastName: text('lastName'),
        language: (text('language') as CreateReward['recipient']['language']) ?? undefined,
        phone,
      },
      message: text('message'),
      externalId: text('externalId'),
      ...(type === 'FIXED' ? { utid: item!.utid } : { currency }),
      ...(fundingCurrency && fundingCurrency !== currency ? { fundingCurrency } : {}),
      ...(type === 'CHOICE' && brands.length ? { allowedBrandKeys: brands } : {}),
      ...(type === 'CHOICE' && expires ? { expiresAt: new Date(expires).toISOString() } : {}),
      ...(deliverAt ? { deliverAt } : {}),
    });
  };
  const confirm = () => {
    if (pending) send.mutate(pending);
    setPending(null);
  };

  if (send.isSuccess) {
    const { reward } = send.data;
    return (
      <div role="status" className="success">
        <p>
          {reward.approval?.status === 'PENDING' && reward.deliverAt ? (
            <>
              Reward of {formatCents(reward.faceValueCents, reward.currency)} to {reward.recipientEmail} created and waiting for approval; once approved
              it goes out at <Time value={reward.deliverAt} /> (or at once, if that time has passed).{' '}
            </>
          ) : reward.deliverAt ? (
            <>
              Reward of {formatCents(reward.faceValueCents, reward.currency)} to {reward.recipientEmail} scheduled: the e-mail goes out at{' '}
              <Time value={reward.deliverAt} />. Until then you can cancel it and get the whole value back.{' '}
            </>
          ) : reward.approval?.status === 'PENDING' ? (
            <>
              Reward of {formatCents(reward.faceValueCents, reward.currency)} to {reward.recipientEmail} created and waiting for approval: nothing
              reaches the recipient until an admin or owner other than you approves it.{' '}
            </>
          ) : (
            <>
              Reward of {formatCents(reward.faceValueCents, reward.currency)} sent to {reward.recipientEmail}.{' '}
            </>
          )}
          <Link to={`/rewards/${reward.id}`}>See the reward</Link>
        </p>
        <p>
          {formatCents(reward.faceValueCents, reward.currency)} held in the {reward.currency} wallet
          {reward.fx
            ? `, converted from the ${reward.fx.fundingCurrency} wallet: ${formatCents(reward.fx.fundedCents, reward.fx.fundingCurrency)} at ${reward.fx.rate}.`
            : '.'}
        </p>
        <p>
          The recipient's link (also in the e-mail), to show in your own app: <code>{send.data.redemptionUrl}</code>
        </p>
        <button type="button" onClick={() => send.reset()}>
          Send another
        </button>
      </div>
    );
  }
  const err = send.error;
  return (
    <form onSubmit={submit} className="stack" noValidate>
      <Field label="Recipient e-mail" name="email" type="email" required {...fieldIssue(err, 'recipient.email')} />
      <Field label="First name" name="firstName" required {...fieldIssue(err, 'recipient.firstName')} />
      <Field label="Last name" name="lastName" {...fieldIssue(err, 'recipient.lastName')} />
      <div className="field">
        <label htmlFor="recipient-language">Recipient's language</label>
        <select
          id="recipient-language"
          name="language"
          defaultValue=""
          data-issue-path="recipient.language"
          aria-invalid={issueOf(err, 'recipient.language') ? true : undefined}
          aria-describedby={issueOf(err, 'recipient.language') ? 'recipient-language-hint recipient-language-error' : 'recipient-language-hint'}
        >
          <option value="">Not set</option>
          {Object.entries(LANGUAGE_NAMES).map(([code, name]) => (
            <option key={code} value={code}>
              {name}
            </option>
          ))}
        </select>
        <small id="recipient-language-hint">The e-mail and the recipient's page speak it; not set: English, and the page follows the browser.</small>
        {issueOf(err, 'recipient.language') && (
          <small id="recipient-language-error" className="field-error">
            {issueOf(err, 'recipient.language')}
          </small>
        )}
      </div>
      <Field
        label="Mobile phone (optional)"
        name="phone"
        type="tel"
        autoComplete="off"
        placeholder="+14155550123"
        hint="With the country code, e.g. +14155550123: a text with the link is sent as well as the e-mail."
        data-issue-path="recipient.phone"
        error={phoneError ?? issueOf(err, 'recipient.phone')}
      />
      {type === 'CHOICE' && (
        <div className="field">
          <label htmlFor="reward-currency">Reward currency</label>
          <select
            id="reward-currency"
            value={currency}
            data-issue-path="currency"
            aria-invalid={issueOf(err, 'currency') ? true : undefined}
            aria-describedby={issueOf(err, 'currency') ? 'reward-currency-hint reward-currency-error' : 'reward-currency-hint'}
            onChange={(e) => {
              setChoiceCurrency(e.target.value);
              setBrands([]);
            }}
          >
            {currencies.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
          <small id="reward-currency-hint">The recipient chooses among cards in this currency.</small>
          {issueOf(err, 'currency') && (
            <small id="reward-currency-error" className="field-error">
              {issueOf(err, 'currency')}
            </small>
          )}
        </div>
      )}
      <Field
        label={`Amount (${currency})`}
        name="amount"
        inputMode="decimal"
        required
        value={amount}
        onChange={(e) => setAmount(e.target.value)}
        {...fieldIssue(err, 'valueCents')}
      />
      {type === 'FIXED' ? (
        <>
          {catalog.isPending && <StatusMessage kind="loading">Loading the catalog…</StatusMessage>}
          {catalog.isError && <StatusMessage kind="error">{catalog.error.message}</StatusMessage>}
          <CardPicker
            label="Gift card"
            brands={catalog.data}
            value={item?.utid ?? null}
            onChange={(choice) => {
              setItem(choice?.item ?? null);
              // A card of one value takes exactly that value: fill it in.
              if (choice && choice.item.valueType === 'FIXED_VALUE' && choice.item.faceValue !== null) setAmount(choice.item.faceValue.toFixed(2));
            }}
            hint="Opens a list to search by a card's name, brand, currency or utid."
            error={issueOf(err, 'utid')}
            issuePath="utid"
          />
          {item && (
            <p>
              The reward is in the card's currency, {item.currencyCode}. Its utid, for a bulk file or the API: <CopyCode value={item.utid} what="utid" />
            </p>
          )}
        </>
      ) : (
        <>
          <CheckboxList
            legend="Brands the recipient may choose (none ticked: the whole catalog)"
            filterLabel="Filter brands"
            options={(catalog.data ?? [])
              .filter((brand) => brand.items.some((i) => i.currencyCode === currency))
              .map((brand) => ({
                value: brand.brandKey,
                searchText: `${brand.name} ${brand.brandKey}`,
                label: (
                  <>
                    {brand.name} <code>{brand.brandKey}</code>
                  </>
                ),
              }))}
            selected={brands}
            onChange={setBrands}
          />
          <Field label={SEND_LABELS.expiresAt} name="expiresAt" type="datetime-local" {...fieldIssue(err, 'expiresAt')} />
        </>
      )}
      {valueCents !== null && valueCents > 0 && <ApprovalNotice valueCents={valueCents} currency={currency} primary={primary} />}
      {valueCents !== null && valueCents > 0 && (type === 'CHOICE' || item) && (
        <FundingChoice currency={currency} valueCents={valueCents} chosen={funding} onChoose={setFunding} {...fieldIssue(err, 'fundingCurrency')} />
      )}
      <ScheduleField value={deliverLocal} onChange={setDeliverLocal} {...fieldIssue(err, 'deliverAt')} />
      <div className="field">
        <label htmlFor="message">Message (optional)</label>
        <textarea id="message" name="message" maxLength={1000} rows={3} data-issue-path="message" aria-invalid={issueOf(err, 'message') ? true : undefined} />
      </div>
      <Field label="External id (optional)" name="externalId" maxLength={100} {...fieldIssue(err, 'externalId')} />
      {clientError && (
        <p role="alert" className="form-error">
          {clientError}
        </p>
      )}
      <FormError error={err} labels={{ ...SEND_LABELS, valueCents: `Amount (${currency})` }} />
      <button type="submit" disabled={send.isPending}>
        Send reward
      </button>
      {pending && (
        <ConfirmDialog
          open
          title="Send this reward?"
          details={[
            { label: 'Amount', value: formatCents(pending.valueCents, currency) },
            { label: 'Recipient', value: [pending.recipient.firstName, pending.recipient.lastName].filter(Boolean).join(' ') + ` <${pending.recipient.email}>` },
            ...(pending.recipient.phone ? [{ label: 'Text to', value: pending.recipient.phone }] : []),
            { label: type === 'FIXED' ? 'Gift card' : 'Recipient chooses', value: type === 'FIXED' ? `${item?.rewardName ?? ''} (${item?.utid ?? ''})` : pending.allowedBrandKeys?.join(', ') || 'any card of the catalog' },
            { label: 'Balance after', value: balanceAfter(wallets.data, rates.data, pending, currency) },
            ...(pending.deliverAt ? [{ label: 'Delivered', value: `${formatTime(pending.deliverAt)} (${pending.deliverAt.slice(0, 16).replace('T', ' ')} UTC)` }] : []),
          ]}
          confirmLabel={`Send ${formatCents(pending.valueCents, currency)}`}
          onConfirm={confirm}
          onCancel={() => setPending(null)}
        />
      )}
    </form>
  );
}

/** The Send form's fields as the merchant sees them, by the API path the server names them with. */
const SEND_LABELS: FieldLabels = {
  'recipient.email': 'Recipient e-mail',
  'recipient.firstName': 'First name',
  'recipient.lastName': 'Last name',
  'recipient.language': "Recipient's language",
  'recipient.phone': 'Mobile phone',
  valueCents: 'Amount',
  utid: 'Gift card',
  currency: 'Reward currency',
  fundingCurrency: 'Pay from another wallet',
  allowedBrandKeys: 'Brands the recipient may choose',
  expiresAt: 'Expires at (optional)',
  deliverAt: 'Deliver at',
  message: 'Message',
  externalId: 'External id',
};

/** E.164, as the API checks it: +, a country code, at most 15 digits. */
const E164 = /^\+[1-9][0-9]{1,14}$/;
const PHONE_FORMAT = 'Enter the number with + and the country code, e.g. +14155550123.';

type SendRequest = Parameters<ReturnType<typeof useSendReward>['mutate']>[0];

/**
 * What the paying wallet keeps after the send: the reward's own wallet, or the funding wallet at
 * the current rate when it is converted (the exact rate is quoted at send time).
 */
function balanceAfter(wallets: Wallet[] | undefined, rates: Parameters<typeof rateOf>[0], request: SendRequest, currency: string): string {
  if (!wallets) return 'loading…';
  const paying = request.fundingCurrency ?? currency;
  const available = wallets.find((w) => w.currency === paying)?.availableCents ?? 0;
  if (paying === currency) return `${formatCents(available - request.valueCents, currency)} in the ${currency} wallet`;
  const rate = rateOf(rates, paying, currency);
  if (!rate) return `${formatCents(available, paying)} in the ${paying} wallet, less the converted amount`;
  return `about ${formatCents(available - fundedCents(request.valueCents, rate.rate), paying)} in the ${paying} wallet (converted at ${rate.rate})`;
}

/**
 * When the wallet of the reward's currency cannot cover the value, the other wallets that could, with
 * what each would take at the current rate (docs/currencies.md, Funded from another wallet). The
 * choice travels as the form's `fundingCurrency`; nothing is offered while the wallet is enough.
 */
function FundingChoice({
  currency,
  valueCents,
  chosen,
  onChoose,
  error,
}: {
  currency: string;
  valueCents: number;
  chosen: string | null;
  onChoose: (currency: string | null) => void;
  error?: string;
}) {
  const wallets = useWallets();
  const rates = useFxRates(true);
  if (!wallets.data) return wallets.isError ? <StatusMessage kind="error">{wallets.error.message}</StatusMessage> : null;
  const own = wallets.data.find((w) => w.currency === currency)?.availableCents ?? 0;
  if (own >= valueCents) return null;
  const options = wallets.data
    .filter((w) => w.currency !== currency)
    .map((w) => {
      const rate = rateOf(rates.data, w.currency, currency);
      const cost = rate ? fundedCents(valueCents, rate.rate) : null;
      return { wallet: w, rate, cost, enough: cost !== null && cost <= w.availableCents };
    });
  const picked = options.find((o) => o.wallet.currency === chosen && o.enough) ? chosen : null;
  return (
    <fieldset>
      <legend>Pay from another wallet</legend>
      <p>
        The {currency} wallet has {formatCents(own, currency)} available, less than {formatCents(valueCents, currency)}. The whole value can be
        converted from another wallet at the current rate when the reward is sent:
      </p>
      {rates.isPending && <StatusMessage kind="loading">Loading exchange rates…</StatusMessage>}
      {rates.isError && <StatusMessage kind="error">{rates.error.message}</StatusMessage>}
      {options.length === 0 && <StatusMessage kind="empty">There is no other wallet: top up one first.</StatusMessage>}
      <div className="picker" role="radiogroup" aria-label="Wallet to pay from">
        {options.map(({ wallet, rate, cost, enough }) => (
          <label key={wallet.currency} className={picked === wallet.currency ? 'picked' : undefined}>
            <input
              type="radio"
              name="fundingCurrency"
              value={wallet.currency}
              checked={picked === wallet.currency}
              disabled={!enough}
              onChange={() => onChoose(wallet.currency)}
            />
            {wallet.currency} wallet: {cost === null ? 'no rate available' : `${formatCents(cost, wallet.currency)} at ${rate!.rate}`} (
            {formatCents(wallet.availableCents, wallet.currency)} available{cost !== null && !enough ? ', not enough' : ''})
          </label>
        ))}
      </div>
      {error && <small className="field-error">{error}</small>}
    </fieldset>
  );
}

/**
 * Says when the send will wait for approval (docs/controls.md, Approvals): its value, in the primary
 * currency at the current mid rate for another currency, at or above the account's threshold.
 */
function ApprovalNotice({ valueCents, currency, primary }: { valueCents: number; currency: string; primary: string }) {
  const settings = useApprovalSettings();
  const threshold = settings.data?.thresholdCents ?? null;
  const rates = useFxRates(threshold !== null && currency !== primary);
  if (threshold === null) return null;
  let primaryCents: number | null = valueCents;
  if (currency !== primary) {
    const rate = rates.data?.find((r) => r.from === currency && r.to === primary);
    primaryCents = rate ? Math.round(valueCents * Number(rate.midRate)) : null;
  }
  if (primaryCents === null || primaryCents < threshold) return null;
  return (
    <p role="note" className="notice">
      This send needs approval: it is at or above the approval threshold of {formatCents(threshold, primary)}. Its value is held at once,
      and the recipient gets nothing until an admin or owner other than you approves it.
    </p>
  );
}

/** The instant a `datetime-local` value means in the browser's time zone, as an ISO timestamp; null when empty or incomplete. */
function instantOf(local: string): string | null {
  if (!local) return null;
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? null : at.toISOString();
}

/**
 * The optional schedule (docs/delivery.md, Scheduled sends): a date and time in the user's time zone,
 * with the UTC instant it means shown beside it, as the API will store it.
 */
function ScheduleField({ value, onChange, error }: { value: string; onChange: (value: string) => void; error?: string }) {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const instant = instantOf(value);
  return (
    <fieldset>
      <legend>Schedule (optional)</legend>
      <Field
        label={`Deliver at (your time zone, ${zone})`}
        name="deliverAt"
        type="datetime-local"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        data-issue-path="deliverAt"
        error={error}
        hint="Leave empty to send now. From a minute to a year ahead: the value is held now, the e-mail goes out then."
      />
      <p id="deliver-at-utc" aria-live="polite">
        {instant ? (
          <>
            That is <strong>{instant.slice(0, 16).replace('T', ' ')} UTC</strong> (<code>{instant}</code>).
          </>
        ) : (
          'Sent as soon as you confirm.'
        )}
      </p>
    </fieldset>
  );
}
