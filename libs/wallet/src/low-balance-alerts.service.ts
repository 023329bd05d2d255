import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuditLog, AuditOrigin } from '@app/audit';
import { BadRequestError, FieldIssue } from '@app/core';
import { Currencies } from './currencies';
import { AlertSettingsDto, StoredAlertSettingsDto } from './dto/alert-settings.dto';

/**
 * An account's low-balance thresholds (docs/alerts.md). The alerts themselves are raised by the
 * database, in the statement that moves a wallet's money (the `wallets_low_balance` trigger), and
 * e-mailed by LowBalanceMailSweep.
 */
@Injectable()
export class LowBalanceAlerts {
  constructor(
    private readonly dataSource: DataSource,
    private readonly currencies: Currencies,
    private readonly audit: AuditLog,
  ) {}

  async get(accountId: string, manager: EntityManager = this.dataSource.manager): Promise<StoredAlertSettingsDto> {
    const rows = (await manager.query(
      `SELECT currency, threshold_cents::int AS threshold FROM low_balance_alerts WHERE account_id = $1 ORDER BY currency`,
      [accountId],
    )) as { currency: string; threshold: number }[];
    return { lowBalance: rows.map((row) => ({ currency: row.currency, thresholdCents: row.threshold })) };
  }

  /**
   * Replaces the thresholds: a currency left out (or given `null`) has no alert any more. A new or
   * changed threshold is armed; one unchanged keeps its state, and every wallet keeps its last alert
   * time (at most one alert per 24 hours, whatever the settings do). The change is audited
   * (`alert_settings.updated`, the thresholds before and after) in the same transaction.
   */
  async replace(accountId: string, settings: AlertSettingsDto, origin: AuditOrigin): Promise<StoredAlertSettingsDto> {
    const supported = await this.currencies.supported(accountId);
    const issues: FieldIssue[] = [];
    const seen = new Set<string>();
    settings.lowBalance.forEach(({ currency }, index) => {
      const path = `alertSettings.lowBalance.${index}.currency`;
      if (!supported.includes(currency)) issues.push({ path, message: `${currency} is not a supported currency; supported: ${supported.join(', ')}` });
      else if (seen.has(currency)) issues.push({ path, message: `${currency} is listed twice; give each currency once` });
      seen.add(currency);
    });
    if (issues.length) throw new BadRequestError(issues);
    const kept = settings.lowBalance.filter((entry): entry is { currency: string; thresholdCents: number } => entry.thresholdCents !== null);
    const currencies = kept.map((entry) => entry.currency);
    return this.dataSource.transaction(async (manager) => {
      // Concurrent replaces take turns on the account's thresholds (once it has any), so each entry's "before" is what it replaced.
      await manager.query(`SELECT 1 FROM low_balance_alerts WHERE account_id = $1 FOR UPDATE`, [accountId]);
      const before = await this.get(accountId, manager);
      await manager.query(
        `WITH removed AS (
           DELETE FROM low_balance_alerts WHERE account_id = $1 AND NOT (currency = ANY($2::text[]))
         )
         INSERT INTO low_balance_alerts (account_id, currency, threshold_cents)
         SELECT $1, s.currency, s.threshold FROM unnest($2::text[], $3::bigint[]) AS s (currency, threshold)
         ON CONFLICT (account_id, currency) DO UPDATE
            SET threshold_cents = EXCLUDED.threshold_cents,
                armed = low_balance_alerts.armed OR low_balance_alerts.threshold_cents <> EXCLUDED.threshold_cents`,
        [accountId, currencies, kept.map((entry) => entry.thresholdCents)],
      );
      const after = await this.get(accountId, manager);
      await this.audit.record(manager, {
        accountId,
        origin,
        action: 'alert_settings.updated',
        targetType: 'account',
        targetId: accountId,
        metadata: { before, after },
      });
      return after;
    });
  }
}
