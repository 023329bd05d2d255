import { Inject, Injectable } from '@nestjs/common';
import Stripe from 'stripe';
import { APP_CONFIG, AppConfig, BadRequestError } from '@app/core';
import type { TopupEntity } from '../entities/topup.entity';

export interface CheckoutSession {
  id: string;
  url: string;
}

/** What the service needs from a Checkout webhook event, once its signature has been verified. */
export interface CheckoutEvent {
  type: string;
  sessionId: string;
  topupId: string | null;
  amountTotal: number | null;
  currency: string | null;
  paid: boolean;
}

/**
 * The Stripe adapter: creates Checkout Sessions through the official SDK and verifies webhook
 * signatures with it. STRIPE_API_BASE_URL points the SDK at a local double in tests.
 */
@Injectable()
export class StripeCheckout {
  private readonly stripe: Stripe | null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.stripe = config.paymentsMode === 'stripe' ? new Stripe(config.stripeSecretKey!, sdkOptions(config)) : null;
  }

  async createSession(topup: TopupEntity): Promise<CheckoutSession> {
    const session = await this.client().checkout.sessions.create(
      {
        mode: 'payment',
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: topup.currency.toLowerCase(),
              unit_amount: topup.amountCents,
              product_data: { name: 'Rewards wallet top-up' },
            },
          },
        ],
        client_reference_id: topup.id,
        metadata: { topupId: topup.id, accountId: topup.accountId },
        success_url: `${this.config.publicBaseUrl}/checkout/complete`,
        cancel_url: `${this.config.publicBaseUrl}/checkout/canceled`,
      },
      // A retried create (network error, our own retry) returns the same session, never a second one.
      { idempotencyKey: `topup-${topup.id}` },
    );
    if (!session.url) throw new Error(`Stripe returned checkout session ${session.id} without a URL`);
    return { id: session.id, url: session.url };
  }

  /** Verifies the Stripe-Signature over the raw body; a forged, stale or future-dated event is a 400. */
  parseWebhook(rawBody: Buffer | undefined, signature: string | undefined): CheckoutEvent | null {
    if (!rawBody || !signature) {
      throw new BadRequestError([{ path: 'Stripe-Signature', message: 'a signed Stripe event is required' }]);
    }
    let event: Stripe.Event;
    try {
      event = this.client().webhooks.constructEvent(rawBody, signature, this.config.stripeWebhookSecret!);
    } catch {
      throw new BadRequestError([{ path: 'Stripe-Signature', message: 'signature verification failed' }]);
    }
    // The SDK refuses a signature older than its tolerance but not one dated in the future: bound both ways.
    // On the wall clock, as the SDK's own check is, not the injected Clock: Stripe dated it by a real clock.
    const signedAt = Number(/(?:^|,)t=(\d+)/.exec(signature)?.[1]);
    if (!Number.isFinite(signedAt) || Math.abs(Date.now() / 1000 - signedAt) > STRIPE_SIGNATURE_TOLERANCE_S) {
      throw new BadRequestError([{ path: 'Stripe-Signature', message: 'the signature is not from the last five minutes' }]);
    }
    if (!event.type.startsWith('checkout.session.')) return null;
    const session = event.data.object as Stripe.Checkout.Session;
    return {
      type: event.type,
      sessionId: session.id,
      topupId: session.metadata?.topupId ?? session.client_reference_id ?? null,
      amountTotal: session.amount_total ?? null,
      currency: session.currency ?? null,
      paid: session.payment_status === 'paid' || session.payment_status === 'no_payment_required',
    };
  }

  private client(): Stripe {
    if (!this.stripe) throw new Error('Stripe is used while PAYMENTS_MODE is not stripe');
    return this.stripe;
  }
}

/** How far a Stripe signature's time may be from now, either way (the SDK's default tolerance). */
const STRIPE_SIGNATURE_TOLERANCE_S = 300;

function sdkOptions(config: AppConfig): Stripe.StripeConfig {
  const options: Stripe.StripeConfig = { maxNetworkRetries: 2, timeout: 15_000, telemetry: false };
  if (config.stripeApiBaseUrl) {
    const base = new URL(config.stripeApiBaseUrl);
    options.host = base.hostname;
    options.port = base.port || (base.protocol === 'https:' ? 443 : 80);
    options.protocol = base.protocol === 'https:' ? 'https' : 'http';
  }
  return options;
}
