import { useSearchParams } from 'react-router';
import { useAuditLog, type AuditAction } from '../api/dashboard';
import { Pager } from '../components/Pager';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';

const ACTIONS = [
  'session.signed_in',
  'session.sign_in_failed',
  'api_key.created',
  'api_key.revoked',
  'member.invited',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'connected_app.revoked',
  'branding.updated',
  'catalog_rules.updated',
  'topup.created',
  'webhook_endpoint.created',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'reward.canceled',
  'password.changed',
  'totp.enabled',
  'totp.disabled',
] as const satisfies readonly AuditAction[];

export function AuditLogPage() {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const action = ACTIONS.find((a) => a === params.get('action'));
  const log = useAuditLog(page, action);
  return (
    <>
      <h1>Audit log</h1>
      <div className="filters">
        <label htmlFor="action">Action</label>
        <select id="action" value={action ?? ''} onChange={(e) => setParams(e.target.value ? { action: e.target.value } : {})}>
          <option value="">Any</option>
          {ACTIONS.map((a) => (
            <option key={a}>{a}</option>
          ))}
        </select>
      </div>
      {log.isPending && <StatusMessage kind="loading">Loading the audit log…</StatusMessage>}
      {log.isError && <StatusMessage kind="error">{log.error.message}</StatusMessage>}
      {log.data && log.data.entries.length === 0 && <StatusMessage kind="empty">Nothing recorded yet.</StatusMessage>}
      {log.data && log.data.entries.length > 0 && (
        <>
          <div className="table-scroll" tabIndex={0} role="region" aria-label="Table (scrolls sideways on narrow screens)">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Who</th>
                  <th scope="col">Action</th>
                  <th scope="col">Target</th>
                  <th scope="col">Address</th>
                </tr>
              </thead>
              <tbody>
                {log.data.entries.map((e) => (
                  <tr key={e.id}>
                    <td>
                      <Time value={e.createdAt} />
                    </td>
                    <td>
                      {e.actor.label} <small>({e.actor.type})</small>
                    </td>
                    <td>{e.action}</td>
                    <td>{e.targetId ? `${e.targetType} ${e.targetId}` : '—'}</td>
                    <td>{e.ipAddress ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} total={log.data.total} pageSize={50} onPage={(p) => setParams({ ...(action ? { action } : {}), page: String(p) })} />
        </>
      )}
    </>
  );
}
