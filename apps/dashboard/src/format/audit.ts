/**
 * How the Audit log page words an entry (docs/audit-log.md, Reading it): its target in terms a person
 * recognises, and the changes it records as old → new values.
 */

export interface AuditEntryLike {
  action: string;
  targetType: string | null;
  targetId: string | null;
  metadata: Record<string, unknown>;
}

export interface AuditChange {
  /** The field that changed; empty when the entry changes one value (a role, an address). */
  field: string;
  from: string;
  to: string;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** A value as the page prints it: "none" for null or absent, lists joined, objects as compact JSON. */
export function auditValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return 'none';
  if (Array.isArray(value)) return value.length ? value.map(auditValue).join(', ') : 'none';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function money(cents: unknown, currency: unknown): string | null {
  if (typeof cents !== 'number' || typeof currency !== 'string') return null;
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(cents / 100);
  } catch {
    return `${cents / 100} ${currency}`;
  }
}

/** The entry's target in words: "Reward to ada@example.com ($25.00)", "API key CI", "3 rewards (bulk send)"; null when it has none. */
export function auditTarget(entry: AuditEntryLike): string | null {
  const m = entry.metadata ?? {};
  if (entry.action === 'reward.created' && m.bulk === true) {
    const values = m.valueCents && typeof m.valueCents === 'object' ? Object.entries(m.valueCents as Record<string, unknown>) : [];
    const total = values.map(([currency, cents]) => money(cents, currency)).filter(Boolean).join(' + ');
    return `${String(m.count)} rewards (bulk send${total ? `, ${total}` : ''})`;
  }
  if (!entry.targetType) return null;
  switch (entry.targetType) {
    case 'reward': {
      const to = text(m.recipientEmail) ?? text(m.to);
      const value = money(m.valueCents ?? m.faceValueCents, m.currency);
      if (!to && !value) return `Reward ${entry.targetId ?? ''}`.trim();
      return `Reward${to ? ` to ${to}` : ''}${value ? ` (${value})` : ''}`;
    }
    case 'api_key':
      return `API key ${text(m.name) ?? entry.targetId ?? ''}`.trim();
    case 'user':
      return text(m.email) ?? `User ${entry.targetId ?? ''}`.trim();
    case 'invitation':
      return `Invitation for ${text(m.email) ?? entry.targetId ?? ''}`.trim();
    case 'topup':
      return `Top-up ${money(m.amountCents, m.currency) ?? entry.targetId ?? ''}`.trim();
    case 'webhook_endpoint':
      return `Webhook endpoint ${text(m.url) ?? entry.targetId ?? ''}`.trim();
    case 'account':
      return 'This account';
    case 'oauth_client':
    case 'oauth_connection':
      return `App ${text(m.appName) ?? text(m.name) ?? entry.targetId ?? ''}`.trim();
    case 'session':
      return 'Sign-in';
    default:
      return `${entry.targetType.replace(/_/g, ' ')} ${entry.targetId ?? ''}`.trim();
  }
}

/**
 * The changes an entry records, old → new: `{before, after}` (field by field when they are
 * objects), `{from, to}`, a host change `{url: {fromHost, toHost}}` and the approval threshold
 * (`previousThresholdCents` → `thresholdCents`). Empty for entries that record no change.
 */
export function auditChanges(metadata: Record<string, unknown> | null | undefined): AuditChange[] {
  const m = metadata ?? {};
  const changes: AuditChange[] = [];
  if ('before' in m || 'after' in m) {
    const { before, after } = m;
    const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
    if (isObject(before) || isObject(after)) {
      const b = isObject(before) ? before : {};
      const a = isObject(after) ? after : {};
      for (const field of [...new Set([...Object.keys(b), ...Object.keys(a)])]) {
        if (!(field in a)) continue;
        if (JSON.stringify(b[field] ?? null) === JSON.stringify(a[field] ?? null)) continue;
        changes.push({ field, from: auditValue(b[field]), to: auditValue(a[field]) });
      }
    } else changes.push({ field: '', from: auditValue(before), to: auditValue(after) });
  }
  if ('from' in m || 'to' in m) changes.push({ field: '', from: auditValue(m.from), to: auditValue(m.to) });
  const url = m.url;
  if (url && typeof url === 'object' && ('fromHost' in url || 'toHost' in url)) {
    const hosts = url as { fromHost?: unknown; toHost?: unknown };
    changes.push({ field: 'URL host', from: auditValue(hosts.fromHost), to: auditValue(hosts.toHost) });
  }
  if ('previousThresholdCents' in m) {
    changes.push({ field: 'thresholdCents', from: auditValue(m.previousThresholdCents), to: auditValue(m.thresholdCents) });
  }
  return changes;
}
