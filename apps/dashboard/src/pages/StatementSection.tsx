import { useState } from 'react';
import { downloadPdf, useStatement, type Statement } from '../api/wallet';
import { Field } from '../components/Field';
import { SelectField } from '../components/SelectField';
import { StatusMessage } from '../components/StatusMessage';
import { formatCents } from '../format/money';

/** `YYYY-MM` of now, in UTC: statements are UTC months (docs/statements.md). */
export function currentUtcMonth(now = new Date()): string {
  return now.toISOString().slice(0, 7);
}

const ROWS: [keyof Statement, string][] = [
  ['openingAvailableCents', 'Opening available'],
  ['openingReservedCents', 'Opening reserved'],
  ['topupCents', 'Top-ups'],
  ['heldCents', 'Held for rewards sent'],
  ['capturedCents', 'Captured for issued cards'],
  ['releasedCents', 'Released back'],
  ['conversionInCents', 'Converted in'],
  ['conversionOutCents', 'Converted out'],
  ['closingAvailableCents', 'Closing available'],
  ['closingReservedCents', 'Closing reserved'],
];

/**
 * A wallet's monthly statement: a month and a currency (the wallets held, the primary first), the
 * figures the API computes from the ledger, and the same statement as a PDF to download.
 */
export function StatementSection({ currencies }: { currencies: readonly string[] }) {
  const latest = currentUtcMonth();
  const [month, setMonth] = useState(latest);
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  const currency = chosen && currencies.includes(chosen) ? chosen : currencies[0];
  const wellFormed = /^[0-9]{4}-(0[1-9]|1[0-2])$/.test(month);
  const statement = useStatement(wellFormed ? month : undefined, currency);
  const [downloading, setDownloading] = useState(false);
  const [downloadError, setDownloadError] = useState<string | null>(null);

  const download = () => {
    setDownloadError(null);
    setDownloading(true);
    downloadPdf(`/v1/wallet/statements/${month}?currency=${encodeURIComponent(currency)}`, `statement-${month}-${currency}.pdf`).then(
      () => setDownloading(false),
      (e: unknown) => {
        setDownloading(false);
        setDownloadError(e instanceof Error ? e.message : 'The download failed.');
      },
    );
  };

  return (
    <section aria-labelledby="statement-heading">
      <h2 id="statement-heading">Monthly statement</h2>
      <form className="inline-form" aria-label="Statement" onSubmit={(event) => event.preventDefault()}>
        <Field
          label="Statement month"
          type="month"
          min="1970-01"
          max={latest}
          value={month}
          onChange={(e) => setMonth(e.target.value)}
          hint="UTC months"
          error={wellFormed ? undefined : 'Choose a month.'}
        />
        <SelectField label="Statement currency" options={currencies} value={currency} onChange={(e) => setChosen(e.target.value)} />
        <button type="button" className="secondary" disabled={!statement.data || downloading} onClick={download}>
          Download PDF
        </button>
        {downloading && <span role="status">Preparing the PDF…</span>}
        {downloadError && (
          <span role="alert" className="form-error">
            {downloadError}
          </span>
        )}
      </form>
      {statement.isLoading && <StatusMessage kind="loading">Loading the statement…</StatusMessage>}
      {statement.isError && <StatusMessage kind="error">{statement.error.message}</StatusMessage>}
      {statement.data && (
        <div className="statement" role="region" aria-label={`Statement ${statement.data.month} ${statement.data.currency}`}>
          <dl className="facts">
            {ROWS.map(([field, label]) => (
              <div key={field} className={field.startsWith('closing') || field.startsWith('opening') ? 'statement-balance' : undefined}>
                <dt>{label}</dt>
                <dd>{formatCents(statement.data[field] as number, statement.data.currency)}</dd>
              </div>
            ))}
          </dl>
          {statement.data.month === latest && <p>This month is in progress: it closes at the balances of now.</p>}
        </div>
      )}
    </section>
  );
}
