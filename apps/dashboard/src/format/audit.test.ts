import { describe, expect, it } from 'vitest';
import { auditChanges, auditTarget } from './audit';

describe('audit entries in words', () => {
  it('names targets a person recognises', () => {
    expect(
      auditTarget({ action: 'reward.created', targetType: 'reward', targetId: 'rw_1', metadata: { recipientEmail: 'ada@example.com', valueCents: 2500, currency: 'USD' } }),
    ).toMatch(/^Reward to ada@example\.com \(.*25\.00\)$/);
    expect(auditTarget({ action: 'reward.created', targetType: null, targetId: null, metadata: { bulk: true, count: 3, valueCents: { USD: 1500 } } })).toMatch(
      /^3 rewards \(bulk send, .*15\.00\)$/,
    );
    expect(auditTarget({ action: 'member.role_changed', targetType: 'user', targetId: 'usr_1', metadata: { email: 'bo@example.com' } })).toBe('bo@example.com');
    expect(auditTarget({ action: 'session.signed_in', targetType: null, targetId: null, metadata: {} })).toBeNull();
  });

  it('shows old → new values of each shape the log records', () => {
    expect(auditChanges({ before: { senderName: 'Old', logoUrl: null }, after: { senderName: 'New' } })).toEqual([{ field: 'senderName', from: 'Old', to: 'New' }]);
    expect(auditChanges({ email: 'bo@example.com', from: 'developer', to: 'admin' })).toEqual([{ field: '', from: 'developer', to: 'admin' }]);
    expect(auditChanges({ url: { fromHost: 'a.example', toHost: 'b.example' } })).toEqual([{ field: 'URL host', from: 'a.example', to: 'b.example' }]);
    expect(auditChanges({ thresholdCents: 5000, previousThresholdCents: null })).toEqual([{ field: 'thresholdCents', from: 'none', to: '5000' }]);
    expect(auditChanges({ valueCents: 100 })).toEqual([]);
  });
});
