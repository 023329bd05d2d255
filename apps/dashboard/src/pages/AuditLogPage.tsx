import { Link } from 'react-router';
import { AUDIT_ACTIONS, useAuditLog } from '../api/audit';
import { useAddressParams } from '../components/address-params';
import { DataTable } from '../components/DataTable';
import { Pager } from '../components/Pager';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { auditChanges, auditTarget, type AuditEntryLike } from '../format/audit';

/** The entry's target in words, linked to its page when it has one (a reward). */
function Target({ entry }: { entry: AuditEntryLike }) {
  const words = auditTarget(entry);
  if (words === null) return <>—</>;
  if (entry.targetType === 'reward' && entry.targetId) return <Link to={`/rewards/${entry.targetId}`}>{words}</Link>;
  return <>{words}</>;
}

/** What the entry changed, old → new, one line a field. */
function Changes({ entry }: { entry: AuditEntryLike }) {
  const changes = auditChanges(entry.metadata);
  if (changes.length === 0) return <>—</>;
  return (
    <ul className="audit-changes">
      {changes.map((c, i) => (
        <li key={i}>
          {c.field && <>{c.field}: </>}
          <del>{c.from}</del> → <ins>{c.to}</ins>
        </li>
      ))}
    </ul>
  );
}

export function AuditLogPage() {
  const [params, update] = useAddressParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const action = AUDIT_ACTIONS.find((a) => a === params.get('action'));
  const log = useAuditLog(page, action);
  return (
    <>
      <h1>Audit log</h1>
      <div className="filters">
        <label htmlFor="action">Action</label>
        <select id="action" value={action ?? ''} onChange={(e) => update({ action: e.target.value, page: undefined })}>
          <option value="">Any</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a}>{a}</option>
          ))}
        </select>
      </div>
      {log.isPending && <StatusMessage kind="loading">Loading the audit log…</StatusMessage>}
      {log.isError && <StatusMessage kind="error">{log.error.message}</StatusMessage>}
      {log.data && log.data.entries.length === 0 && <StatusMessage kind="empty">Nothing recorded yet.</StatusMessage>}
      {log.data && log.data.entries.length > 0 && (
        <>
          <DataTable
            rows={log.data.entries}
            rowKey={(e) => e.id}
            columns={[
              { header: 'When', cell: (e) => <Time value={e.createdAt} /> },
              {
                header: 'Who',
                cell: (e) => (
                  <>
                    {e.actor.label} <small>({e.actor.type})</small>
                  </>
                ),
              },
              { header: 'Action', cell: (e) => e.action },
              { header: 'Target', cell: (e) => <Target entry={e} /> },
              { header: 'Change', cell: (e) => <Changes entry={e} /> },
              { header: 'Address', cell: (e) => e.ipAddress ?? '—' },
            ]}
          />
          <Pager page={page} total={log.data.total} pageSize={50} onPage={(p) => update({ page: String(p) })} />
        </>
      )}
    </>
  );
}
