import { useState } from 'react';
import { Link } from 'react-router';
import { ApiFailure } from '../api/http';
import { useIdempotencyKey } from '../api/idempotency';
import { useMoneyMoved } from '../api/money-moved';
import { sendBulkChunk } from '../api/rewards';
import { DataTable } from '../components/DataTable';
import { BULK_TEMPLATE_ROWS, parseBulkCsv, type BulkRow } from '../format/bulk-rows';
import { download, toCsv } from '../format/csv';
import { formatCents } from '../format/money';

/** The API takes up to 500 rewards a request; a longer file goes in chunks of this size, in order. */
const CHUNK = 500;

interface RowResult {
  line: number;
  ok: boolean;
  rewardId: string | null;
  error: string | null;
}

type Phase = { kind: 'idle' } | { kind: 'preview'; results: RowResult[] } | { kind: 'sending'; done: number } | { kind: 'sent'; results: RowResult[] };

export function BulkSend({ currency }: { currency: string }) {
  const moneyMoved = useMoneyMoved();
  const [rows, setRows] = useState<BulkRow[] | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const [submission, renewSubmission] = useIdempotencyKey();

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
      setPhase({ kind: 'preview', results: await run(parsed, true, () => undefined) });
    } catch (error) {
      setFileError(error instanceof Error ? error.message : String(error));
    }
  };

  /** Sends the valid rows in chunks (a dry run checks everything, funds included, and moves no money). */
  const run = async (all: BulkRow[], dryRun: boolean, progress: (done: number) => void): Promise<RowResult[]> => {
    const results: RowResult[] = all.filter((r) => r.error).map((r) => ({ line: r.line, ok: false, rewardId: null, error: r.error! }));
    const valid = all.filter((r): r is BulkRow & { reward: NonNullable<BulkRow['reward']> } => !!r.reward);
    for (let start = 0; start < valid.length; start += CHUNK) {
      const chunk = valid.slice(start, start + CHUNK);
      try {
        // One key per chunk of this submission: sending again after a lost answer replays, never doubles.
        const answer = await sendBulkChunk(
          chunk.map((r) => r.reward),
          dryRun,
          `${submission}-${start / CHUNK}`,
        );
        for (const item of answer.results) results.push({ line: chunk[item.index].line, ok: item.ok, rewardId: item.rewardId, error: item.error });
      } catch (error) {
        const message = error instanceof ApiFailure ? error.message : 'the request failed';
        for (const r of chunk) results.push({ line: r.line, ok: false, rewardId: null, error: message });
      }
      progress(Math.min(start + CHUNK, valid.length));
    }
    return results.sort((a, b) => a.line - b.line);
  };

  const send = async () => {
    if (!rows) return;
    setPhase({ kind: 'sending', done: 0 });
    const results = await run(rows, false, (done) => setPhase({ kind: 'sending', done }));
    setPhase({ kind: 'sent', results });
    void moneyMoved();
  };

  const total = rows?.filter((r) => r.reward).reduce((sum, r) => sum + r.reward!.valueCents, 0) ?? 0;
  const results = phase.kind === 'preview' || phase.kind === 'sent' ? phase.results : null;
  return (
    <section aria-labelledby="bulk">
      <h2 id="bulk">Bulk send from a CSV file</h2>
      <p>
        <button type="button" className="secondary" onClick={() => download('rewards-template.csv', toCsv(BULK_TEMPLATE_ROWS))}>
          Download the template
        </button>
      </p>
      <div className="field">
        <label htmlFor="bulk-file">CSV file</label>
        <input id="bulk-file" type="file" accept=".csv,text/csv" onChange={(e) => void read(e.target.files?.[0])} />
      </div>
      {fileError && (
        <p role="alert" className="form-error">
          {fileError}
        </p>
      )}
      {phase.kind === 'sending' && (
        <p role="status">
          Sending… <progress max={rows?.filter((r) => r.reward).length ?? 0} value={phase.done} /> {phase.done} rows done
        </p>
      )}
      {results && (
        <>
          <p role="status">
            {phase.kind === 'preview' ? 'Preview (nothing sent yet): ' : 'Done: '}
            {results.filter((r) => r.ok).length} of {results.length} rows {phase.kind === 'preview' ? 'would be sent' : 'sent'}
            {phase.kind === 'preview' && `, ${formatCents(total, currency)} in all`}.
          </p>
          <DataTable
            rows={results}
            rowKey={(r) => r.line}
            caption={phase.kind === 'preview' ? 'Dry run' : 'Result'}
            columns={[
              { header: 'Line', cell: (r) => r.line },
              { header: 'Result', cell: (r) => (r.ok ? r.rewardId ? <Link to={`/rewards/${r.rewardId}`}>Sent: {r.rewardId}</Link> : 'OK' : `Error: ${r.error}`) },
            ]}
          />
          <div className="actions">
            {phase.kind === 'preview' && (
              <button type="button" onClick={() => void send()} disabled={!results.some((r) => r.ok)}>
                Send {results.filter((r) => r.ok).length} rewards
              </button>
            )}
            {phase.kind === 'sent' && (
              <button
                type="button"
                className="secondary"
                onClick={() => download('rewards-result.csv', toCsv([['line', 'ok', 'reward_id', 'error'], ...results.map((r) => [r.line, String(r.ok), r.rewardId, r.error])]))}
              >
                Download the result
              </button>
            )}
          </div>
        </>
      )}
    </section>
  );
}
