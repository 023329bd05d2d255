import { useMemo, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useAccount } from '../api/account';
import { itemAccepts, itemValueLabel, useCatalog, type CatalogItem } from '../api/catalog';
import { useIdempotencyKey } from '../api/idempotency';
import { useSendReward } from '../api/rewards';
import { Field } from '../components/Field';
import { FormError, issueOf } from '../components/FormError';
import { StatusMessage } from '../components/StatusMessage';
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
  return <BulkSend currency={account.data?.currency ?? 'USD'} />;
}

function SendForm({ type }: { type: 'FIXED' | 'CHOICE' }) {
  const account = useAccount();
  const catalog = useCatalog();
  const [idempotencyKey, renewKey] = useIdempotencyKey();
  const [amount, setAmount] = useState('');
  const [search, setSearch] = useState('');
  const [item, setItem] = useState<CatalogItem | null>(null);
  const [brands, setBrands] = useState<string[]>([]);
  const [clientError, setClientError] = useState<string | null>(null);
  const currency = account.data?.currency ?? 'USD';

  const items = useMemo(() => {
    const term = search.trim().toLowerCase();
    return (catalog.data ?? [])
      .flatMap((brand) => brand.items.map((i) => ({ brand, item: i })))
      .filter(({ brand, item: i }) => i.currencyCode === currency && (!term || `${brand.name} ${i.rewardName}`.toLowerCase().includes(term)))
      .slice(0, 50);
  }, [catalog.data, search, currency]);

  // A sent form is a finished submission: the next one gets a new key.
  const send = useSendReward(idempotencyKey, renewKey);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setClientError(null);
    const form = new FormData(event.currentTarget);
    const valueCents = parseMajorUnits(amount);
    if (valueCents === null) return setClientError('Enter an amount such as 25 or 25.50.');
    if (type === 'FIXED' && !item) return setClientError('Choose a gift card.');
    if (type === 'FIXED' && item && !itemAccepts(item, valueCents)) return setClientError(`This card takes ${itemValueLabel(item)}.`);
    const text = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    const expires = text('expiresAt');
    send.mutate({
      type,
      valueCents,
      recipient: { email: text('email') ?? '', firstName: text('firstName') ?? '', lastName: text('lastName') },
      message: text('message'),
      externalId: text('externalId'),
      ...(type === 'FIXED' ? { utid: item!.utid } : {}),
      ...(type === 'CHOICE' && brands.length ? { allowedBrandKeys: brands } : {}),
      ...(type === 'CHOICE' && expires ? { expiresAt: new Date(expires).toISOString() } : {}),
    });
  };

  if (send.isSuccess) {
    return (
      <div role="status" className="success">
        <p>
          Reward sent to {send.data.reward.recipientEmail}. <Link to={`/rewards/${send.data.reward.id}`}>See the reward</Link>
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
      <Field label="Recipient e-mail" name="email" type="email" required error={issueOf(err, 'recipient.email')} />
      <Field label="First name" name="firstName" required error={issueOf(err, 'recipient.firstName')} />
      <Field label="Last name" name="lastName" error={issueOf(err, 'recipient.lastName')} />
      <Field
        label={`Amount (${currency})`}
        name="amount"
        inputMode="decimal"
        required
        value={amount}
        onChange={(e) => setAmount(e.target.value)}
        error={issueOf(err, 'valueCents')}
      />
      {type === 'FIXED' ? (
        <fieldset>
          <legend>Gift card</legend>
          <Field label="Search the catalog" type="search" value={search} onChange={(e) => setSearch(e.target.value)} error={issueOf(err, 'utid')} />
          {catalog.isPending && <StatusMessage kind="loading">Loading the catalog…</StatusMessage>}
          {catalog.isError && <StatusMessage kind="error">{catalog.error.message}</StatusMessage>}
          <div className="picker" role="radiogroup" aria-label="Gift card">
            {items.map(({ brand, item: i }) => (
              <label key={i.utid} className={item?.utid === i.utid ? 'picked' : undefined}>
                <input type="radio" name="utid" value={i.utid} checked={item?.utid === i.utid} onChange={() => setItem(i)} />
                {brand.name}: {i.rewardName} ({itemValueLabel(i)})
              </label>
            ))}
            {catalog.data && items.length === 0 && <StatusMessage kind="empty">No card matches.</StatusMessage>}
          </div>
        </fieldset>
      ) : (
        <>
          <fieldset>
            <legend>Brands the recipient may choose (none ticked: the whole catalog)</legend>
            <div className="picker">
              {(catalog.data ?? [])
                .filter((brand) => brand.items.some((i) => i.currencyCode === currency))
                .map((brand) => (
                  <label key={brand.brandKey}>
                    <input
                      type="checkbox"
                      checked={brands.includes(brand.brandKey)}
                      onChange={(e) => setBrands((now) => (e.target.checked ? [...now, brand.brandKey] : now.filter((k) => k !== brand.brandKey)))}
                    />
                    {brand.name}
                  </label>
                ))}
            </div>
          </fieldset>
          <Field label="Expires at (optional)" name="expiresAt" type="datetime-local" error={issueOf(err, 'expiresAt')} />
        </>
      )}
      <div className="field">
        <label htmlFor="message">Message (optional)</label>
        <textarea id="message" name="message" maxLength={1000} rows={3} />
      </div>
      <Field label="External id (optional)" name="externalId" maxLength={100} error={issueOf(err, 'externalId')} />
      {clientError && (
        <p role="alert" className="form-error">
          {clientError}
        </p>
      )}
      <FormError error={err} fields={['recipient.email', 'recipient.firstName', 'recipient.lastName', 'valueCents', 'utid', 'expiresAt', 'externalId']} />
      <button type="submit" disabled={send.isPending}>
        Send reward
      </button>
    </form>
  );
}
