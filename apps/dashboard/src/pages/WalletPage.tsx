import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { exportCsv } from '../api/export';
import { useFxRates } from '../api/fx';
import { useHasScope } from '../api/session';
import { fetchTransactionsForExport, receiptUrl, useTopUp, useWallets, useWalletTransactions, type WalletTransaction } from '../api/wallet';
import { useAddressParams } from '../components/address-params';
import { Balances } from '../components/Balances';
import { DataTable } from '../components/DataTable';
import { DateRangeFields } from '../components/DateRangeFields';
import { ExportButton } from '../components/ExportButton';
import { Field } from '../components/Field';
import { fieldIssue, FormError, issueOf } from '../components/FormError';
import { Pager } from '../components/Pager';
import { SelectField } from '../components/SelectField';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { supportedCurrencies } from '../format/currencies';
import { formatCents } from '../format/money';
import { parseMajorUnits } from '../format/parse-money';
import { ConvertForm } from './ConvertForm';
import { StatementSection } from './StatementSection';
import { reportLink } from './ReportsPage';

const PAGE_SIZE = 50;
const TRANSACTION_KINDS = ['TOPUP', 'HOLD', 'CAPTURE', 'RELEASE', 'CONVERSION_OUT', 'CONVERSION_IN'] as const;

export function WalletPage() {
  const mayFund = useHasScope('wallet:write');
  // The page and the currency filter live in the address, so a filtered list can be bookmarked.
  const [params, update] = useAddressParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const currency = params.get('currency') || undefined;
  const wallets = useWallets();
  const rates = useFxRates(mayFund);
  const kind = TRANSACTION_KINDS.find((k) => k === params.get('kind'));
  const relatedId = params.get('related_id') || undefined;
  const from = params.get('from') || undefined;
  const to = params.get('to') || undefined;
  const filters = { kind, relatedId, from, to };
  const transactions = useWalletTransactions(page, PAGE_SIZE, currency, filters);
  const returned = params.get('topup');
  // What may be topped up or converted; the wallets alone until the rates answer (or if they fail).
  const currencies = wallets.data ? supportedCurrencies(wallets.data, rates.data ?? []) : [];
  // The filter offers the currencies held (only they have transactions), and the one asked for by address.
  const held = [...new Set([...(wallets.data ?? []).map((w) => w.currency), ...(currency ? [currency] : [])])];

  return (
    <>
      <h1>Wallet</h1>
      {returned && <p role="status">{returned === 'success' ? 'Payment received: the top-up settles once the payment provider confirms it.' : 'The payment was not completed.'}</p>}
      <h2>Balances</h2>
      {wallets.isPending && <StatusMessage kind="loading">Loading balances…</StatusMessage>}
      {wallets.isError && <StatusMessage kind="error">{wallets.error.message}</StatusMessage>}
      {wallets.data && <Balances wallets={wallets.data} />}
      {mayFund && currencies.length > 0 && (
        <section aria-labelledby="topup-heading">
          <h2 id="topup-heading">Top up</h2>
          <TopUpForm currencies={currencies} />
        </section>
      )}
      {mayFund && currencies.length > 0 && (
        <section aria-labelledby="convert-heading">
          <h2 id="convert-heading">Convert</h2>
          {rates.isPending ? (
            <StatusMessage kind="loading">Loading rates…</StatusMessage>
          ) : currencies.length < 2 ? (
            <StatusMessage kind="empty">The account can hold only {currencies[0]}: there is nothing to convert to.</StatusMessage>
          ) : (
            <ConvertForm currencies={currencies} />
          )}
        </section>
      )}
      {wallets.data && wallets.data.length > 0 && <StatementSection currencies={wallets.data.map((w) => w.currency)} />}
      <h2>Transactions</h2>
      <form
        className="filters"
        role="search"
        aria-label="Filter transactions"
        onSubmit={(event) => {
          event.preventDefault();
          const related = String(new FormData(event.currentTarget).get('related_id') ?? '').trim();
          update({ related_id: related || undefined, page: undefined });
        }}
      >
        <label htmlFor="transactions-currency">Currency</label>
        <select id="transactions-currency" value={currency ?? ''} onChange={(e) => update({ currency: e.target.value || undefined, page: undefined })}>
          <option value="">All currencies</option>
          {held.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
        <label htmlFor="transactions-kind">Kind</label>
        <select id="transactions-kind" value={kind ?? ''} onChange={(e) => update({ kind: e.target.value || undefined, page: undefined })}>
          <option value="">Any kind</option>
          {TRANSACTION_KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
        <DateRangeFields from={from} to={to} onChange={(range) => update({ ...range, page: undefined })} />
        <label htmlFor="transactions-related">Concerning (id)</label>
        <input id="transactions-related" name="related_id" defaultValue={relatedId ?? ''} placeholder="rw_…" />
        <button type="submit">Search</button>
        <ExportButton
          label="Export CSV"
          run={(progress) =>
            exportCsv(
              currency ? `wallet-transactions-${currency}.csv` : 'wallet-transactions.csv',
              ['id', 'created_at', 'kind', 'description', 'currency', 'available_delta_cents', 'reserved_delta_cents', 'related_type', 'related_id'],
              (t: WalletTransaction) => [t.id, t.createdAt, t.kind, t.description, t.currency, t.availableDeltaCents, t.reservedDeltaCents, t.relatedType, t.relatedId],
              (p) => fetchTransactionsForExport(p, currency, filters),
              progress,
            )
          }
        />
        <Link to={reportLink('wallet_transactions', params)}>Report of these transactions…</Link>
      </form>
      {transactions.isPending && <StatusMessage kind="loading">Loading transactions…</StatusMessage>}
      {transactions.isError && <StatusMessage kind="error">{transactions.error.message}</StatusMessage>}
      {transactions.data &&
        (transactions.data.transactions.length === 0 ? (
          <StatusMessage kind="empty">{kind || relatedId || from || to ? 'No transactions match.' : currency ? `No ${currency} transactions yet.` : 'No transactions yet.'}</StatusMessage>
        ) : (
          <>
            <DataTable
              rows={transactions.data.transactions}
              rowKey={(t) => t.id}
              columns={[
                { header: 'When', cell: (t) => <Time value={t.createdAt} /> },
                { header: 'Kind', cell: (t) => t.kind },
                { header: 'Description', cell: (t) => t.description },
                { header: 'Currency', cell: (t) => t.currency },
                { header: 'Available', cell: (t) => formatCents(t.availableDeltaCents, t.currency) },
                { header: 'Reserved', cell: (t) => formatCents(t.reservedDeltaCents, t.currency) },
                // A TOPUP row is a settled top-up: its receipt is a PDF.
                {
                  header: 'Receipt',
                  cell: (t) =>
                    t.kind === 'TOPUP' ? (
                      <a href={receiptUrl(t.relatedId)} download={`receipt-${t.relatedId}.pdf`} aria-label={`Receipt of top-up ${t.relatedId} (PDF)`}>
                        Receipt
                      </a>
                    ) : null,
                },
              ]}
            />
            <Pager page={page} total={transactions.data.total} pageSize={PAGE_SIZE} onPage={(p) => update({ page: String(p) })} />
          </>
        ))}
    </>
  );
}

/** Funds one wallet: the primary currency unless another is chosen (the list comes from the API). */
function TopUpForm({ currencies }: { currencies: readonly string[] }) {
  const [currency, setCurrency] = useState(currencies[0]);
  const [amount, setAmount] = useState('');
  const [clientError, setClientError] = useState<string | null>(null);
  const topUp = useTopUp(() => setAmount(''));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const cents = parseMajorUnits(amount);
    if (cents === null) return setClientError('Enter an amount such as 500 or 500.00.');
    setClientError(null);
    topUp.mutate({ amountCents: cents, currency });
  };
  return (
    <form onSubmit={submit} className="inline-form" aria-label="Top up">
      <SelectField label="Top-up currency" options={currencies} value={currency} onChange={(e) => setCurrency(e.target.value)} {...fieldIssue(topUp.error, 'currency')} />
      <Field label={`Top up amount (${currency})`} inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} error={clientError ?? issueOf(topUp.error, 'amountCents')} />
      <button type="submit" disabled={topUp.isPending}>
        Top up
      </button>
      {topUp.isSuccess && !topUp.data.checkoutUrl && (
        <span role="status">
          Added {formatCents(topUp.data.topup.amountCents, topUp.data.topup.currency)}.{' '}
          <a href={receiptUrl(topUp.data.topup.id)} download={`receipt-${topUp.data.topup.id}.pdf`}>
            Receipt (PDF)
          </a>
        </span>
      )}
      <FormError error={topUp.error} labels={{ amountCents: `Top up amount (${currency})`, currency: 'Top-up currency' }} />
    </form>
  );
}
