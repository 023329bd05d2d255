import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { AuditLog, AuditOrigin } from '@app/audit';
import { APP_CONFIG, AppConfig, ListPage, ListWindow, newId, NotFoundError, readListPage, ReadRouting, recordEvent, renderPdf, UpstreamUnavailableError, ValidationError } from '@app/core';
import { Currencies, formatAmount, WalletLedger, WalletStatements } from '@app/wallet';
import { TopupEntity, TopupStatus } from './entities/topup.entity';
import { CheckoutEvent, StripeCheckout } from './payments/stripe-checkout';

/** Stripe could not start a checkout: the top-up is FAILED and nothing was charged. */
export class PaymentProviderUnavailableError extends UpstreamUnavailableError {
  constructor() {
    super('The payment provider could not be reached; nothing was charged. Retry later.');
  }
}

/**
 * Funding the wallet. Fake mode settles inside the create call; Stripe mode settles when Checkout
 * reports the payment, exactly once per top-up however often the event is delivered.
 */
@Injectable()
export class TopupsService {
  private readonly logger = new Logger(TopupsService.name);

  constructor(
    private readonly dataSource: DataSource,
    @InjectRepository(TopupEntity) private readonly topups: Repository<TopupEntity>,
    private readonly ledger: WalletLedger,
    private readonly stripe: StripeCheckout,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly audit: AuditLog,
    private readonly currencies: Currencies,
    private readonly statements: WalletStatements,
    private readonly reads: ReadRouting,
  ) {}

  /** Funds the primary wallet, or `requested`'s (a currency the account may hold: 400 otherwise). */
  async create(
    accountId: string,
    amountCents: number,
    origin: AuditOrigin,
    requested?: string,
  ): Promise<{ topup: TopupEntity; checkoutUrl: string | null }> {
    const currency = requested === undefined ? await this.ledger.currencyOf(accountId) : await this.currencies.check(accountId, requested, 'currency');
    const topup = this.topups.create({
      id: newId('tu'),
      accountId,
      amountCents,
      currency,
      provider: this.config.paymentsMode,
      status: 'PENDING',
    });
    const audited = (manager: EntityManager) =>
      this.audit.record(manager, {
        accountId,
        origin,
        action: 'topup.created',
        targetType: 'topup',
        targetId: topup.id,
        metadata: { amountCents, currency, provider: topup.provider },
      });
    if (this.config.paymentsMode === 'fake') {
      await this.dataSource.transaction(async (manager) => {
        await manager.insert(TopupEntity, topup);
        await this.settle(manager, topup);
        await audited(manager);
      });
      return { topup: await this.topups.findOneByOrFail({ id: topup.id }), checkoutUrl: null };
    }

    await this.dataSource.transaction(async (manager) => {
      await manager.insert(TopupEntity, topup);
      await audited(manager);
    });
    try {
      const session = await this.stripe.createSession(topup);
      await this.topups.update({ id: topup.id }, { checkoutSessionId: session.id, checkoutUrl: session.url });
      return { topup: await this.topups.findOneByOrFail({ id: topup.id }), checkoutUrl: session.url };
    } catch (error) {
      this.logger.error({ err: error, topupId: topup.id }, 'creating the Stripe checkout session failed');
      await this.topups.update({ id: topup.id, status: 'PENDING' }, { status: 'FAILED', completedAt: () => 'clock_timestamp()' });
      throw new PaymentProviderUnavailableError();
    }
  }

  /** Applies a verified Checkout event. Replays and out-of-order deliveries change nothing twice. */
  async applyCheckoutEvent(event: CheckoutEvent): Promise<void> {
    if (!event.topupId) return;
    const completed = event.type === 'checkout.session.completed' || event.type === 'checkout.session.async_payment_succeeded';
    if (completed && event.paid) {
      await this.dataSource.transaction(async (manager) => {
        const topup = await this.claimPending(manager, event.topupId!, event.sessionId);
        if (!topup) return;
        if (event.amountTotal !== topup.amountCents || event.currency?.toUpperCase() !== topup.currency) {
          // Never credit an amount we did not ask for: the top-up stays unpaid for an operator to look
          // at. The event is still acknowledged (200): an error would have Stripe retry it for days.
          this.logger.error(
            { topupId: topup.id, sessionId: event.sessionId, amountTotal: event.amountTotal, currency: event.currency },
            'checkout amount or currency differs from the top-up; not credited',
          );
          return;
        }
        await this.settle(manager, topup);
      });
    } else if (event.type === 'checkout.session.expired') {
      await this.finish(event.topupId, event.sessionId, 'EXPIRED');
    } else if (event.type === 'checkout.session.async_payment_failed') {
      await this.finish(event.topupId, event.sessionId, 'FAILED');
    }
  }

  /** A page of top-ups, newest first, and their total from the kept counts, in one snapshot (docs/pagination.md). */
  list(accountId: string, window: ListWindow): Promise<ListPage<TopupEntity>> {
    // From the read replica when one serves (docs/scaling.md, Read replica).
    return this.reads.snapshot((manager) =>
      readListPage(manager, { entity: TopupEntity, accountId, countedAs: 'topups', order: 'created' }, window),
    );
  }

  /**
   * A PDF receipt of a settled top-up (docs/statements.md, Receipts): its id, amount and currency,
   * when it settled, and the account's name, under the account's sender branding. Another
   * account's top-up, or none: `404`; one that has not succeeded: `422`.
   */
  async receipt(accountId: string, topupId: string): Promise<{ topup: TopupEntity; pdf: Buffer }> {
    const topup = await this.topups.findOneBy({ id: topupId, accountId });
    if (!topup) throw new NotFoundError('Top-up');
    if (topup.status !== 'SUCCEEDED' || !topup.completedAt) {
      throw new ValidationError(`Top-up ${topup.id} is ${topup.status}: only a SUCCEEDED top-up has a receipt.`);
    }
    const branding = await this.statements.branding(accountId);
    const settled = topup.completedAt.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
    const pdf = await renderPdf(branding, {
      title: 'Top-up receipt',
      subtitle: [`Top-up ${topup.id}`],
      lines: [
        { label: 'Top-up', value: topup.id },
        { label: 'Settled', value: settled },
        { label: 'Paid by', value: topup.provider === 'stripe' ? 'Card (Stripe Checkout)' : 'Test payment' },
        { label: 'Amount credited', value: formatAmount(topup.amountCents, topup.currency), total: true },
      ],
      footer: [`Credited to the ${topup.currency} wallet of ${branding.accountName}.`],
    });
    return { topup, pdf };
  }

  /** Locks the PENDING top-up of this session; null when another delivery already settled it. */
  private async claimPending(manager: EntityManager, topupId: string, sessionId: string): Promise<TopupEntity | null> {
    return manager
      .getRepository(TopupEntity)
      .createQueryBuilder('t')
      .setLock('pessimistic_write')
      .where('t.id = :topupId AND t.status = :pending', { topupId, pending: 'PENDING' })
      .andWhere('(t.checkout_session_id IS NULL OR t.checkout_session_id = :sessionId)', { sessionId })
      .getOne();
  }

  /**
   * Marks the top-up SUCCEEDED and credits the wallet of its currency (opening it on its first
   * credit), with its event, in the caller's transaction.
   */
  private async settle(manager: EntityManager, topup: TopupEntity): Promise<void> {
    await manager.update(TopupEntity, { id: topup.id }, { status: 'SUCCEEDED', completedAt: () => 'clock_timestamp()' });
    const credited = await this.ledger.credit(manager, {
      accountId: topup.accountId,
      currency: topup.currency,
      amountCents: topup.amountCents,
      relatedType: 'topup',
      relatedId: topup.id,
      description: `Top-up ${topup.id}`,
    });
    if (!credited) return;
    await recordEvent(manager, {
      accountId: topup.accountId,
      type: 'wallet.credited',
      data: { topupId: topup.id, amountCents: topup.amountCents, currency: topup.currency },
    });
  }

  private async finish(topupId: string, sessionId: string, status: TopupStatus): Promise<void> {
    await this.topups
      .createQueryBuilder()
      .update()
      .set({ status, completedAt: () => 'clock_timestamp()' })
      .where('id = :topupId AND status = :pending', { topupId, pending: 'PENDING' })
      .andWhere('(checkout_session_id IS NULL OR checkout_session_id = :sessionId)', { sessionId })
      .execute();
  }
}
