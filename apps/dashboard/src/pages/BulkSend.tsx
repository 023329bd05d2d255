import { useEffect, useMemo, useState } from 'react';
import { Link } from 'react-router';
import type { CatalogBrand, CatalogItem } from '../api/catalog';
import { ApiFailure } from '../api/http';
import { useIdempotencyKey } from '../api/idempotency';
import { useMoneyMoved } from '../api/money-moved';
import { sendBulkChunk } from '../api/rewards';
import { useWallets } from '../api/wallet';
import { CardPicker } from '../components/CardPicker';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyCode } from '../components/CopyCode';
import { DataTable } from '../components/DataTable';
import { bulkTemplateRows, parseBulkCsv, type BulkReward, type BulkRow } from '../format/bulk-rows';
import { download, toCsv } from '../format/csv';
import { formatCents } from '../format/money';
import { describeText, merchantMessage, type FieldLabels } from '../format/api-errors';

/** The API paths of a bulk row's fields, named by the file's columns (the merchant's words for them here). */
const BULK_LABELS: FieldLabels = {
  type: 'Column type',
  'recipient.email': 'Column email',
  'recipient.firstName': 'Column first_name',
  'recipient.lastName': 'Column last_name',
  'recipient.language': 'Column language',
  valueCents: 'Column amount',
  utid: 'Column utid',
  allowedBrandKeys: 'Column brand_keys',
  expiresAt: 'Column expires_at',
  message: 'Column message',
  externalId: 'Column external_id',
  campaign: 'Column campaign',
};

/** A row's error as the API words it (`bad_request: Invalid request: recipient.email: …`), in the merchant's. */
function bulkError(text: string): string {
  if (/^skipped: insufficient_funds/.test(text)) return 'Skipped: the wallet balance ran out before this row.';
  return describeText(text, BULK_LABELS);
}

/** The API takes up to 500 rewards a request; a longer file goes in chunks of this size, in order. */
const CHUNK = 500;

interface RowResult {
  line: number;
  /** What the row asks for (null when the file's row could not be read). */
  reward: BulkReward | null;
  ok: boolean;
  rewardId: string | null;
  error: string | null;
}

type Phase =
  | { kind: 'idle' }
  | { kind: 'checking' }
  | { kind: 'preview'; results: RowResult[] }
  | { kind: 'sending'; done: number }
  | { kind: 'sent'; results: RowResult[] };

/**
 * Bulk sends from a CSV file (docs/dashboard.md, Bulk sends): the file is checked by a dry run, the
 * preview shows each row as the reward it would be and totals only the rows the dry run accepted,
 * and nothing is sent before the user confirms the total and the balance it leaves.
 */
export function BulkSend({ currency, brands }: { currency: string; brands: readonly CatalogBrand[] | undefined }) {
  const moneyMoved = useMoneyMoved();
  const wallets = useWallets();
  const [rows, setRows] = useState<BulkRow[] | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const [confirming, setConfirming] = useState(false);
  const [defaultUtid, setDefaultUtid] = useState('');
  const [submission, renewSubmission] = useIdempotencyKey();

  const itemsByUtid = useMemo(() => new Map((brands ?? []).flatMap((b) => b.items.map((i) => [i.utid, { brand: b, item: i }] as const))), [brands]);
  /** A FIXED row with no utid takes the card chosen here (so nobody has to type codes). */
  const withDefaultCard = (all: BulkRow[]): BulkRow[] =>
    all.map((r) => (r.reward && r.reward.type === 'FIXED' && !r.reward.utid && defaultUtid ? { ...r, reward: { ...r.reward, utid: defaultUtid } } : r));

  /** Sends the valid rows in chunks (a dry run checks everything, funds included, and moves no money). */
  const run = async (all: BulkRow[], dryRun: boolean, progress: (done: number) => void): Promise<RowResult[]> => {
    const results: RowResult[] = all.filter((r) => r.error).map((r) => ({ line: r.line, reward: null, ok: false, rewardId: null, error: r.error! }));
    const valid = all.filter((r): r is BulkRow & { reward: BulkReward } => !!r.reward);
    for (let start = 0; start < valid.length; start += CHUNK) {
      const chunk = valid.slice(start, start + CHUNK);
      try {
        // One key per chunk of this submission: sending again after a lost answer replays, never doubles.
        const answer = await sendBulkChunk(
          chunk.map((r) => r.reward),
          dryRun,
          `${submission}-${start / CHUNK}`,
        );
        for (const item of answer.results) {
          const row = chunk[item.index];
          results.push({ line: row.line, reward: row.reward, ok: item.ok, rewardId: item.rewardId, error: item.error === null ? null : bulkError(item.error) });
        }
      } catch (error) {
        const message = error instanceof ApiFailure ? merchantMessage(error, BULK_LABELS) : 'The request failed. Try again.';
        for (const r of chunk) results.push({ line: r.line, reward: r.reward, ok: false, rewardId: null, error: message });
      }
      progress(Math.min(start + CHUNK, valid.length));
    }
    return results.sort((a, b) => a.line - b.line);
  };

  const read = async (file: File | undefined) => {
    // A new file is a new submission; sending the same one again reuses its keys and replays.
    renewSubmission();
    setPhase({ kind: 'idle' });
    setRows(null);
    setFileError(null);
    if (!file) return;
    try {
      const parsed = parseBulkCsv(await file.text());
      if (parsed.length === 0) throw new Error('The file has a header but no rows.');
      setRows(parsed);
    } catch (error) {
      setFileError(error instanceof Error ? error.message : String(error));
    }
  };

  // The dry run, again whenever the file or the card for rows without one changes.
  useEffect(() => {
    if (!rows) return;
    let current = true;
    setPhase({ kind: 'checking' });
    void run(withDefaultCard(rows), true, () => undefined).then((results) => current && setPhase({ kind: 'preview', results }));
    return () => {
      current = false;
    };
  }, [rows, defaultUtid]);

  const send = async () => {
    if (!rows) return;
    setConfirming(false);
    setPhase({ kind: 'sending', done: 0 });
    const results = await run(withDefaultCard(rows), false, (done) => setPhase({ kind: 'sending', done }));
    setPhase({ kind: 'sent', results });
    void moneyMoved();
  };

  /** A row's currency: a FIXED reward's is its card's, a CHOICE reward's the account's primary one. */
  const currencyOf = (reward: BulkReward) => (reward.type === 'FIXED' ? (itemsByUtid.get(reward.utid ?? '')?.item.currencyCode ?? currency) : currency);
  const results = phase.kind === 'preview' || phase.kind === 'sent' ? phase.results : null;
  const accepted = results?.filter((r) => r.ok && r.reward) ?? [];
  // Totals of the accepted rows only, per currency: what would leave (or left) each wallet.
  const totals = [...accepted.reduce((sum, r) => sum.set(currencyOf(r.reward!), (sum.get(currencyOf(r.reward!)) ?? 0) + r.reward!.valueCents), new Map<string, number>())];
  const totalsText = totals.map(([c, cents]) => formatCents(cents, c)).join(' + ') || formatCents(0, currency);
  const balanceAfter = totals.map(([c, cents]) => {
    const available = wallets.data?.find((w) => w.currency === c)?.availableCents ?? 0;
    return `${formatCents(available - cents, c)} in the ${c} wallet`;
  });

  return (
    <section aria-labelledby="bulk">
      <h2 id="bulk">Bulk send from a CSV file</h2>
      <p>
        <button
          type="button"
          className="secondary"
          disabled={!brands}
          onClick={() => download('rewards-template.csv', toCsv(bulkTemplateRows(brands ?? [], currency)))}
        >
          Download the template
        </button>{' '}
        Its example rows use cards of your catalog; the codes (utid, brand keys) are on the <Link to="/catalog">Catalog</Link> page.
      </p>
      <CardPicker
        label="Gift card for FIXED rows with an empty utid (optional)"
        brands={brands}
        value={defaultUtid || null}
        onChange={(choice) => setDefaultUtid(choice?.item.utid ?? '')}
        none="None: every FIXED row names its utid"
      />
      {itemsByUtid.get(defaultUtid) && (
        <p>
          FIXED rows with an empty utid get <CopyCode value={defaultUtid} what="utid" />.
        </p>
      )}
      <div className="field">
        <label htmlFor="bulk-file">CSV file</label>
        <input id="bulk-file" type="file" accept=".csv,text/csv" onChange={(e) => void read(e.target.files?.[0])} />
      </div>
      {fileError && (
        <p role="alert" className="form-error">
          {fileError}
        </p>
      )}
      {phase.kind === 'checking' && <p role="status">Checking the file…</p>}
      {phase.kind === 'sending' && (
        <p role="status">
          Sending… <progress max={accepted.length || (rows?.filter((r) => r.reward).length ?? 0)} value={phase.done} /> {phase.done} rows done
        </p>
      )}
      {results && (
        <>
          <p role="status">
            {phase.kind === 'preview'
              ? `Preview (nothing sent yet): ${accepted.length} of ${results.length} rows would be sent, ${totalsText} in all.`
              : `Done: ${accepted.length} of ${results.length} rows sent, ${totalsText} in all.`}
          </p>
          <DataTable
            rows={results}
            rowKey={(r) => r.line}
            caption={phase.kind === 'preview' ? 'Dry run' : 'Result'}
            columns={[
              { header: 'Line', cell: (r) => r.line },
              { header: 'Recipient', cell: (r) => r.reward?.recipient.email ?? '' },
              { header: 'Amount', cell: (r) => (r.reward ? formatCents(r.reward.valueCents, currencyOf(r.reward)) : '') },
              { header: 'Card', cell: (r) => (r.reward ? rowCard(r.reward, itemsByUtid) : '') },
              {
                header: 'Result',
                cell: (r) => (r.ok ? r.rewardId ? <Link to={`/rewards/${r.rewardId}`}>Sent: {r.rewardId}</Link> : 'OK' : `Error: ${r.error}`),
              },
            ]}
          />
          <div className="actions">
            {phase.kind === 'preview' && (
              <button type="button" onClick={() => setConfirming(true)} disabled={accepted.length === 0}>
                Send {accepted.length} {accepted.length === 1 ? 'reward' : 'rewards'}
              </button>
            )}
            {phase.kind === 'sent' && (
              <button
                type="button"
                className="secondary"
                onClick={() =>
                  download(
                    'rewards-result.csv',
                    toCsv([
                      ['line', 'email', 'amount', 'currency', 'ok', 'reward_id', 'error'],
                      ...results.map((r) => [
                        r.line,
                        r.reward?.recipient.email ?? '',
                        r.reward ? (r.reward.valueCents / 100).toFixed(2) : '',
                        r.reward ? currencyOf(r.reward) : '',
                        String(r.ok),
                        r.rewardId,
                        r.error,
                      ]),
                    ]),
                  )
                }
              >
                Download the result
              </button>
            )}
          </div>
          <ConfirmDialog
            open={confirming}
            title={`Send ${accepted.length} ${accepted.length === 1 ? 'reward' : 'rewards'}?`}
            details={[
              { label: 'Rewards', value: `${accepted.length} (rows the check accepted; ${results.length - accepted.length} left out)` },
              { label: 'Total', value: totalsText },
              { label: 'Balance after', value: wallets.data ? balanceAfter.join(', ') : 'loading…' },
            ]}
            confirmLabel={`Send ${totalsText}`}
            onConfirm={() => void send()}
            onCancel={() => setConfirming(false)}
          />
        </>
      )}
    </section>
  );
}

/** The card a row names, by name with its code, or the brands a CHOICE row allows. */
function rowCard(reward: BulkReward, itemsByUtid: Map<string, { brand: CatalogBrand; item: CatalogItem }>): string {
  if (reward.type === 'CHOICE') return reward.allowedBrandKeys?.length ? `Choice of ${reward.allowedBrandKeys.join(', ')}` : 'Choice of the whole catalog';
  const found = itemsByUtid.get(reward.utid ?? '');
  return found ? `${found.brand.name}: ${found.item.rewardName} (${found.item.utid})` : (reward.utid ?? 'no card');
}
