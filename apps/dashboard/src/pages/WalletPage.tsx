import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { exportCsv } from '../api/export';
import { useHasScope } from '../api/session';
import { fetchTransactionsForExport, useTopUp, useWallet, useWalletTransactions, type WalletTransaction } from '../api/wallet';
import { DataTable } from '../components/DataTable';
import { ExportButton } from '../components/ExportButton';
import { Field } from '../components/Field';
import { FormError, issueOf } from '../components/FormError';
import { Pager } from '../components/Pager';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { formatCents } from '../format/money';
import { parseMajorUnits } from '../format/parse-money';

const PAGE_SIZE = 50;

export function WalletPage() {
  const mayFund = useHasScope('wallet:write');
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const wallet = useWallet();
  const transactions = useWalletTransactions(page, PAGE_SIZE);
  const returned = params.get('topup');
  const currency = wallet.data?.currency ?? 'USD';

  return (
    <>
      <h1>Wallet</h1>
      {returned && <p role="status">{returned === 'success' ? 'Payment received: the top-up settles once the payment provider confirms it.' : 'The payment was not completed.'}</p>}
      {wallet.isPending && <StatusMessage kind="loading">Loading balances…</StatusMessage>}
      {wallet.isError && <StatusMessage kind="error">{wallet.error.message}</StatusMessage>}
      {wallet.data && (
        <dl className="figures">
          <div>
            <dt>Available</dt>
            <dd>{formatCents(wallet.data.availableCents, currency)}</dd>
          </div>
          <div>
            <dt>Reserved</dt>
            <dd>{formatCents(wallet.data.reservedCents, currency)}</dd>
          </div>
        </dl>
      )}
      {mayFund && <TopUpForm currency={currency} />}
      <h2>Transactions</h2>
      <ExportButton
        label="Export CSV"
        run={(progress) =>
          exportCsv(
            'wallet-transactions.csv',
            ['id', 'created_at', 'kind', 'description', 'available_delta_cents', 'reserved_delta_cents', 'related_type', 'related_id'],
            (t: WalletTransaction) => [t.id, t.createdAt, t.kind, t.description, t.availableDeltaCents, t.reservedDeltaCents, t.relatedType, t.relatedId],
            fetchTransactionsForExport,
            progress,
          )
        }
      />
      {transactions.isPending && <StatusMessage kind="loading">Loading transactions…</StatusMessage>}
      {transactions.isError && <StatusMessage kind="error">{transactions.error.message}</StatusMessage>}
      {transactions.data &&
        (transactions.data.transactions.length === 0 ? (
          <StatusMessage kind="empty">No transactions yet.</StatusMessage>
        ) : (
          <>
            <DataTable
              rows={transactions.data.transactions}
              rowKey={(t) => t.id}
              columns={[
                { header: 'When', cell: (t) => <Time value={t.createdAt} /> },
                { header: 'Kind', cell: (t) => t.kind },
                { header: 'Description', cell: (t) => t.description },
                { header: 'Available', cell: (t) => formatCents(t.availableDeltaCents, currency) },
                { header: 'Reserved', cell: (t) => formatCents(t.reservedDeltaCents, currency) },
              ]}
            />
            <Pager page={page} total={transactions.data.total} pageSize={PAGE_SIZE} onPage={(p) => setParams({ page: String(p) })} />
          </>
        ))}
    </>
  );
}

function TopUpForm({ currency }: { currency: string }) {
  const [amount, setAmount] = useState('');
  const [clientError, setClientError] = useState<string | null>(null);
  const topUp = useTopUp(() => setAmount(''));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const cents = parseMajorUnits(amount);
    if (cents === null) return setClientError('Enter an amount such as 500 or 500.00.');
    setClientError(null);
    topUp.mutate(cents);
  };
  return (
    <form onSubmit={submit} className="inline-form" aria-label="Top up">
      <Field label={`Top up amount (${currency})`} inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} error={clientError ?? issueOf(topUp.error, 'amountCents')} />
      <button type="submit" disabled={topUp.isPending}>
        Top up
      </button>
      {topUp.isSuccess && !topUp.data.checkoutUrl && <span role="status">Added {formatCents(topUp.data.topup.amountCents, currency)}.</span>}
      <FormError error={topUp.error} fields={['amountCents']} />
    </form>
  );
}
