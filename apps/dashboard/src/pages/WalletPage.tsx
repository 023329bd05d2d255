import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { invalidate, unwrap, v1 } from '../api/http';
import type { components } from '@client/schema';
import { isAdmin, useRole } from '../api/session';
import { Field } from '../components/Field';
import { FormError, issueOf } from '../components/FormError';
import { exportCsv } from '../api/export';
import { ExportButton } from '../components/ExportButton';
import { Pager } from '../components/Pager';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { formatCents } from '../format/money';
import { parseMajorUnits } from '../format/parse-money';

const PAGE_SIZE = 50;
type Transaction = components['schemas']['WalletTransactionDto'];

export function WalletPage() {
  const admin = isAdmin(useRole());
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const wallet = useQuery({ queryKey: ['wallet'], queryFn: async () => (await unwrap(await v1.GET('/v1/wallet'))).wallet });
  const transactions = useQuery({
    queryKey: ['wallet', 'transactions', page],
    queryFn: async () => unwrap(await v1.GET('/v1/wallet/transactions', { params: { query: { page, page_size: PAGE_SIZE } } })),
    placeholderData: keepPreviousData,
  });
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
      {admin && <TopUpForm currency={currency} />}
      <h2>Transactions</h2>
      <ExportButton
        label="Export CSV"
        run={(progress) =>
          exportCsv(
            'wallet-transactions.csv',
            ['id', 'created_at', 'kind', 'description', 'available_delta_cents', 'reserved_delta_cents', 'related_type', 'related_id'],
            (t: Transaction) => [t.id, t.createdAt, t.kind, t.description, t.availableDeltaCents, t.reservedDeltaCents, t.relatedType, t.relatedId],
            async (p) => {
              const answer = await unwrap(await v1.GET('/v1/wallet/transactions', { params: { query: { page: p, page_size: 100 } } }));
              return { items: answer.transactions, total: answer.total };
            },
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
            <div className="table-scroll" tabIndex={0} role="region" aria-label="Table (scrolls sideways on narrow screens)">
              <table>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Description</th>
                    <th scope="col">Available</th>
                    <th scope="col">Reserved</th>
                  </tr>
                </thead>
                <tbody>
                  {transactions.data.transactions.map((t) => (
                    <tr key={t.id}>
                      <td>
                        <Time value={t.createdAt} />
                      </td>
                      <td>{t.kind}</td>
                      <td>{t.description}</td>
                      <td>{formatCents(t.availableDeltaCents, currency)}</td>
                      <td>{formatCents(t.reservedDeltaCents, currency)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager page={page} total={transactions.data.total} pageSize={PAGE_SIZE} onPage={(p) => setParams({ page: String(p) })} />
          </>
        ))}
    </>
  );
}

function TopUpForm({ currency }: { currency: string }) {
  const client = useQueryClient();
  const [amount, setAmount] = useState('');
  const [clientError, setClientError] = useState<string | null>(null);
  const topUp = useMutation({
    mutationFn: async (amountCents: number) => unwrap(await v1.POST('/v1/topups', { body: { amountCents } })),
    onSuccess: (answer) => {
      // Stripe: the browser goes to the payment page and comes back to the wallet.
      if (answer.checkoutUrl) window.location.assign(answer.checkoutUrl);
      else {
        setAmount('');
        void invalidate(client, 'wallet', 'overview');
      }
    },
  });
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
