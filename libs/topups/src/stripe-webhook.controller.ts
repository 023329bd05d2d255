import { Controller, Get, Header, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { RawBodyRequest } from '@nestjs/common';
import type { Request } from 'express';
import { Public } from '@app/auth';
import { StripeCheckout } from './payments/stripe-checkout';
import { TopupsService } from './topups.service';

/** Stripe calls this; it is not part of the merchant API, so it is not in openapi.yaml. */
@ApiExcludeController()
@Public()
@Controller()
export class StripeWebhookController {
  constructor(
    private readonly stripe: StripeCheckout,
    private readonly topups: TopupsService,
  ) {}

  @Post('webhooks/stripe')
  @HttpCode(200)
  async receive(@Req() request: RawBodyRequest<Request>, @Headers('stripe-signature') signature?: string) {
    // Verified over the exact bytes Stripe sent; a re-serialised body would not verify.
    const event = this.stripe.parseWebhook(request.rawBody, signature);
    if (event) await this.topups.applyCheckoutEvent(event);
    return { received: true };
  }

  /** Where Stripe Checkout sends the payer back. */
  @Get('checkout/complete')
  @Header('Content-Type', 'text/html; charset=utf-8')
  complete() {
    return page(
      'Payment received',
      'Your wallet is credited as soon as the payment is confirmed. You can close this page.',
      '/dashboard/wallet?topup=success',
    );
  }

  @Get('checkout/canceled')
  @Header('Content-Type', 'text/html; charset=utf-8')
  canceled() {
    return page('Payment canceled', 'Nothing was charged. You can close this page.', '/dashboard/wallet?topup=canceled');
  }
}

/** The page a payer lands on; a top-up started from the dashboard goes back to its wallet page from here. */
function page(title: string, text: string, dashboardPath: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title></head><body><main><h1>${title}</h1><p>${text}</p><p><a href="${dashboardPath}">Back to the wallet in the dashboard</a></p></main></body></html>`;
}
