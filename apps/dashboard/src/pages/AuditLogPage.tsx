import { useSearchParams } from 'react-router';
import { useAuditLog, type AuditAction } from '../api/dashboard';
import { Pager } from '../components/Pager';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';

/** Every audited action, once: a Record, so an action the API adds and this page lacks fails the typecheck. */
const ACTION_NAMES: Record<AuditAction, true> = {
  'session.signed_in': true,
  'session.sign_in_failed': true,
  'api_key.created': true,
  'api_key.revoked': true,
  'member.invited': true,
  'member.joined': true,
  'member.role_changed': true,
  'member.removed': true,
  'connected_app.connected': true,
  'connected_app.revoked': true,
  'branding.updated': true,
  'catalog_rules.updated': true,
  'topup.created': true,
  'webhook_endpoint.created': true,
  'webhook_endpoint.deleted': true,
  'webhook_endpoint.secret_rotated': true,
  'reward.canceled': true,
  'password.changed': true,
  'totp.enabled': true,
  'totp.disabled': true,
  'webhook_endpoint.updated': true,
  'invitation.revoked': true,
  'account.created': true,
  'oauth_client.created': true,
  'fx_conversion.created': true,
};
const ACTIONS = Object.keys(ACTION_NAMES) as AuditAction[];

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
