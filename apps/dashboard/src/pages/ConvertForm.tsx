import { useEffect, useReducer, useState, type FormEvent } from 'react';
import { useFxConversion, useFxQuote, type HeldQuote } from '../api/fx';
import { ApiFailure } from '../api/http';
import { useIdempotencyKey } from '../api/idempotency';
import { Field } from '../components/Field';
import { fieldIssue, FormError, issueOf } from '../components/FormError';
import { SelectField } from '../components/SelectField';
import { formatCents, formatRate } from '../format/money';
import { parseMajorUnits } from '../format/parse-money';
import { secondsLeft } from '../format/quote-countdown';

/** Whole seconds left until `deadline` (the page's clock), re-read four times a second while there is one. */
function useSecondsLeft(deadline: number | null): number {
  const [, tick] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    if (deadline === null) return;
    const timer = setInterval(tick, 250);
    return () => clearInterval(timer);
  }, [deadline]);
  return deadline === null ? 0 : secondsLeft(deadline, Date.now());
}

/**
 * Converts between two of the account's currencies at a quote (docs/dashboard.md, Currencies): the
 * amount is what the target wallet is to receive; the quote shows the rate, both amounts and the
 * seconds it binds for, and only a quote still binding can be confirmed. One Idempotency-Key per
 * quote, so a double click on Confirm converts once.
 */
export function ConvertForm({ currencies }: { currencies: readonly string[] }) {
  const [from, setFrom] = useState(currencies[0]);
  const [to, setTo] = useState(currencies.find((c) => c !== currencies[0]) ?? currencies[0]);
  const [amount, setAmount] = useState('');
  const [clientErrors, setClientErrors] = useState<{ to?: string; amount?: string }>({});
  const [held, setHeld] = useState<HeldQuote | null>(null);
  const [key, renewKey] = useIdempotencyKey();
  const quote = useFxQuote();
  const convert = useFxConversion(key, () => {
    setHeld(null);
    setAmount('');
    renewKey();
  });
  const left = useSecondsLeft(held?.deadline ?? null);
  const expired = held !== null && left === 0;

  /** Any change to what is asked voids the quote on screen, and what the last attempt said. */
  const edit = (change: () => void) => {
    change();
    setHeld(null);
    quote.reset();
    convert.reset();
  };

  const requestQuote = () => {
    const toAmountCents = parseMajorUnits(amount);
    const errors = {
      to: from === to ? `Choose a currency other than ${from}.` : undefined,
      amount: toAmountCents === null || toAmountCents === 0 ? 'Enter an amount such as 100 or 100.00.' : undefined,
    };
    setClientErrors(errors);
    if (errors.to || errors.amount || toAmountCents === null) return;
    convert.reset();
    quote.mutate(
      { from, to, toAmountCents },
      {
        onSuccess: (answer) => {
          setHeld(answer);
          renewKey();
        },
      },
    );
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    requestQuote();
  };

  // A quote the service no longer takes (expired on its clock, or used): only a new one helps.
  const lapsed = convert.error instanceof ApiFailure && convert.error.status === 422;
  return (
    <>
      <form onSubmit={submit} className="inline-form" aria-label="Convert">
        <SelectField label="From" options={currencies} value={from} onChange={(e) => edit(() => setFrom(e.target.value))} {...fieldIssue(quote.error, 'from')} />
        <SelectField label="To" options={currencies} value={to} onChange={(e) => edit(() => setTo(e.target.value))} error={clientErrors.to ?? issueOf(quote.error, 'to')} />
        <Field
          label={`Amount to receive (${to})`}
          inputMode="decimal"
          value={amount}
          onChange={(e) => edit(() => setAmount(e.target.value))}
          error={clientErrors.amount ?? issueOf(quote.error, 'toAmountCents')}
        />
        <button type="submit" disabled={quote.isPending}>
          Get quote
        </button>
        <FormError error={quote.error} labels={{ from: 'From', to: 'To', toAmountCents: 'Amount' }} />
      </form>
      {held && (
        <section className="quote" aria-labelledby="quote-heading">
          <h3 id="quote-heading">Quote</h3>
          <dl className="facts">
            <dt>Rate</dt>
            <dd>{formatRate(held.quote.rate, held.quote.from, held.quote.to)}</dd>
            <dt>You pay</dt>
            <dd>{formatCents(held.quote.fromAmountCents, held.quote.from)}</dd>
            <dt>You receive</dt>
            <dd>{formatCents(held.quote.toAmountCents, held.quote.to)}</dd>
            <dt>Valid for</dt>
            <dd>
              {/* A timer is not read out at every tick; its end is announced below. */}
              <span role="timer">{left} s</span>
            </dd>
          </dl>
          {expired || lapsed ? (
            <div className="actions">
              {expired && <p role="status">This quote has expired. Ask for a new one: the rate may have changed.</p>}
              <button type="button" onClick={requestQuote} disabled={quote.isPending}>
                Get a new quote
              </button>
            </div>
          ) : (
            <div className="actions">
              <button type="button" onClick={() => convert.mutate(held.quote.id)} disabled={convert.isPending}>
                Confirm conversion
              </button>
              <button type="button" className="secondary" onClick={() => edit(() => undefined)}>
                Discard quote
              </button>
            </div>
          )}
          <FormError error={convert.error} />
        </section>
      )}
      {convert.isSuccess && !held && (
        <p role="status" className="success">
          Converted {formatCents(convert.data.conversion.fromAmountCents, convert.data.conversion.from)} into{' '}
          {formatCents(convert.data.conversion.toAmountCents, convert.data.conversion.to)}.
        </p>
      )}
    </>
  );
}
