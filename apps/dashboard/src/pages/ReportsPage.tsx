import type { FormEvent } from 'react';
import { downloadUrl, useReports, useRequestReport, type Report, type ReportFilters, type ReportType } from '../api/reports';
import { createdRange } from '../api/rewards';
import { useHasScope } from '../api/session';
import { useAddressParams } from '../components/address-params';
import { DataTable } from '../components/DataTable';
import { DateRangeFields } from '../components/DateRangeFields';
import { fieldIssue, FormError, issueOf } from '../components/FormError';
import { Pager } from '../components/Pager';
import { SelectField } from '../components/SelectField';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';

const PAGE_SIZE = 25;
const TYPE_LABELS: Record<ReportType, string> = { rewards: 'Rewards', cards: 'Issued cards', wallet_transactions: 'Wallet transactions' };
/**
 * The list filters a report takes over from the page that linked here (Rewards, Wallet), by the
 * name the address gives them there, and the report's name for each (docs/reports.md, Filters).
 */
const CARRIED: Record<ReportType, Record<string, keyof ReportFilters>> = {
  rewards: { status: 'status', type: 'type', external_id: 'externalId', campaign: 'campaign', currency: 'currency' },
  cards: { status: 'status', type: 'type', external_id: 'externalId', campaign: 'campaign', currency: 'currency' },
  wallet_transactions: { currency: 'currency', kind: 'kind', related_id: 'relatedId' },
};

/** The address of the Reports page with a list's current filters, for the Rewards and Wallet pages to link to. */
export function reportLink(type: ReportType, params: URLSearchParams): string {
  const next = new URLSearchParams({ report: type });
  for (const name of [...Object.keys(CARRIED[type]), 'from', 'to']) {
    const value = params.get(name);
    if (value) next.set(name, value);
  }
  return `/reports?${next}`;
}

export function ReportsPage() {
  const mayRewards = useHasScope('rewards:read');
  const mayWallet = useHasScope('wallet:read');
  const types = (Object.keys(TYPE_LABELS) as ReportType[]).filter((type) => (type === 'wallet_transactions' ? mayWallet : mayRewards));
  // The request's type, range and carried-over filters live in the address, as the lists' filters do.
  const [params, update] = useAddressParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const type = types.find((t) => t === params.get('report')) ?? types[0];
  const from = params.get('from') || undefined;
  const to = params.get('to') || undefined;
  const carried = Object.entries(CARRIED[type] ?? {}).flatMap(([name, filter]) => {
    const value = params.get(name);
    return value ? [{ name, filter, value }] : [];
  });
  const reports = useReports(page, PAGE_SIZE);
  const request = useRequestReport();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const range = createdRange(from, to);
    const filters: ReportFilters = { createdGte: range.created_gte, createdLt: range.created_lt };
    for (const { filter, value } of carried) (filters as Record<string, string>)[filter] = value;
    request.mutate({ type, filters: Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined)) }, { onSuccess: () => update({ page: undefined }) });
  };

  if (types.length === 0) return <StatusMessage kind="empty">Your role in this account cannot use this page.</StatusMessage>;
  return (
    <>
      <h1>Reports</h1>
      <p>
        A report is a CSV file of every row the filters select, built in the background: request it here, then download it once it is
        complete. It can be downloaded for 7 days.
      </p>
      <section aria-labelledby="request-heading">
        <h2 id="request-heading">Request a report</h2>
        <form className="stack" onSubmit={submit}>
          <SelectField
            label="Report of"
            value={type}
            options={types}
            onChange={(e) => update({ report: e.target.value })}
            {...fieldIssue(request.error, 'type')}
          />
          <DateRangeFields from={from} to={to} onChange={(range) => update(range)} />
          {(issueOf(request.error, 'filters.createdGte') || issueOf(request.error, 'filters.createdLt')) && (
            <p className="field-error" role="alert">
              {issueOf(request.error, 'filters.createdGte') ?? issueOf(request.error, 'filters.createdLt')}
            </p>
          )}
          <p>Leave the dates empty for the last 366 days; a report covers at most 366 days.</p>
          {carried.length > 0 && (
            <div>
              <p id="carried-heading">Also filtered as the list was:</p>
              <ul aria-labelledby="carried-heading">
                {carried.map(({ name, filter, value }) => (
                  <li key={name}>
                    {filter}: <code>{value}</code>
                  </li>
                ))}
              </ul>
              <button type="button" className="secondary" onClick={() => update(Object.fromEntries(carried.map(({ name }) => [name, undefined])))}>
                Remove these filters
              </button>
            </div>
          )}
          <FormError error={request.error} labels={{ type: 'Report of', 'filters.createdGte': 'From', 'filters.createdLt': 'To' }} />
          <button type="submit" disabled={request.isPending}>
            Request report
          </button>
          {request.isSuccess && <p role="status">Report requested: it appears below, and can be downloaded once complete.</p>}
        </form>
      </section>
      <section aria-labelledby="reports-heading">
        <h2 id="reports-heading">Your reports</h2>
        {reports.isPending && <StatusMessage kind="loading">Loading reports…</StatusMessage>}
        {reports.isError && <StatusMessage kind="error">{reports.error.message}</StatusMessage>}
        {reports.data &&
          (reports.data.reports.length ? (
            <>
              <DataTable<Report>
                rows={reports.data.reports}
                rowKey={(report) => report.id}
                caption={`${reports.data.total} reports`}
                columns={[
                  { header: 'Requested', cell: (report) => <Time value={report.createdAt} /> },
                  { header: 'Of', cell: (report) => TYPE_LABELS[report.type as ReportType] ?? report.type },
                  { header: 'Created from', cell: (report) => <Time value={report.filters.createdGte} /> },
                  { header: 'Created before', cell: (report) => <Time value={report.filters.createdLt} /> },
                  { header: 'Status', cell: (report) => report.status },
                  { header: 'Rows', cell: (report) => (report.rowCount === undefined ? '—' : report.rowCount.toLocaleString()) },
                  { header: 'Expires', cell: (report) => <Time value={report.expiresAt} /> },
                  {
                    header: 'File',
                    cell: (report) =>
                      report.status === 'COMPLETED' ? (
                        <a href={downloadUrl(report)} download aria-label={`Download CSV of report ${report.id}`}>
                          Download CSV
                        </a>
                      ) : (
                        '—'
                      ),
                  },
                ]}
              />
              <Pager page={page} total={reports.data.total} pageSize={PAGE_SIZE} onPage={(p) => update({ page: String(p) })} />
            </>
          ) : (
            <StatusMessage kind="empty">No reports yet.</StatusMessage>
          ))}
      </section>
    </>
  );
}
