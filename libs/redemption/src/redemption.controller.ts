import { Body, Controller, Get, Headers, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { clientAddress, Public, RateLimiter, setRateLimitHeaders } from '@app/auth';
import { APP_CONFIG, AppConfig, NotFoundError, parseIdempotencyKey, RateLimitedError, registerSecretPath, SecretParams } from '@app/core';
import { RECIPIENT_LANGUAGES, recipientTexts, RecipientTexts } from '@app/mail';
import { PickCardDto, RedemptionStateView } from './dto/redemption.dto';
import { REDEEM_SCRIPT } from './redeem-script';
import { renderMessagePage, renderRedemptionPage } from './redemption-page';
import { RedemptionService } from './redemption.service';

/** Unknown tokens allowed per client address in MISS_WINDOW_MS; after that its unknown tokens get 429, not 404. */
export const REDEMPTION_MISSES_PER_WINDOW = 20;
const MISS_WINDOW_MS = 10 * 60_000;

type Refusal = { status: 404 | 429; retryAfter?: number };

// Everything under /r/{token} carries the link's token, a path no route knows included (docs/operations.md, Logging policy).
registerSecretPath('/r/:token/*');

/**
 * The recipient's page and its JSON API (docs/redemption.md), reached by the link token alone. Not part
 * of the merchant API, so not in openapi.yaml: docs/redemption.md documents it. Every request counts against
 * the address (docs/redemption.md, Limits), and unknown tokens count again on a tighter budget, past which an
 * address's guesses are refused (see miss()).
 */
@ApiExcludeController()
@Public()
@Controller('r')
export class RedemptionController {
  constructor(
    private readonly redemption: RedemptionService,
    private readonly limiter: RateLimiter,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  // Declared before ':token' so the asset path is never taken for a token.
  @Get('assets/redeem.js')
  script(@Res() res: Response): void {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('application/javascript; charset=utf-8').send(REDEEM_SCRIPT);
  }

  @SecretParams('token')
  @Get(':token')
  async page(@Param('token') token: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    privateResponse(res);
    const found = await this.open(token, req, res);
    if ('status' in found) {
      if (found.retryAfter) res.setHeader('Retry-After', String(found.retryAfter));
      res.vary('Accept-Language');
      res.status(found.status).type('html').send(renderMessagePage(pageTexts(null, req), found.status === 404 ? 'notFound' : 'tooMany'));
      return;
    }
    const texts = pageTexts(found.reward.language, req);
    res.setHeader('Content-Language', texts.language);
    if (!found.reward.language) res.vary('Accept-Language');
    res.status(200).type('html').send(renderRedemptionPage(found, texts));
  }

  @SecretParams('token')
  @Get(':token/api')
  async state(@Param('token') token: string, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<RedemptionStateView> {
    privateResponse(res);
    const found = await this.open(token, req, res);
    if ('status' in found) throw refusalError(found);
    return found;
  }

  @SecretParams('token')
  @Post(':token/api/cards')
  async pick(
    @Param('token') token: string,
    @Body() body: PickCardDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<unknown> {
    privateResponse(res);
    const refused = await this.admit(req, res);
    if (refused) throw refusalError(refused);
    try {
      const outcome = await this.redemption.pick(token, body, parseIdempotencyKey(idempotencyKey));
      res.status(outcome.status);
      if (outcome.replayed) res.setHeader('Idempotent-Replayed', 'true');
      return outcome.body;
    } catch (error) {
      if (error instanceof NotFoundError) throw refusalError(await this.miss(req));
      throw error;
    }
  }

  /** Admits the request, finds the reward and marks it opened; or says why not. */
  private async open(token: string, req: Request, res: Response): Promise<RedemptionStateView | Refusal> {
    const refused = await this.admit(req, res);
    if (refused) return refused;
    const reward = await this.redemption.find(token);
    if (!reward) return this.miss(req);
    await this.redemption.markOpened(reward);
    return this.redemption.state(reward);
  }

  private async admit(req: Request, res: Response): Promise<Refusal | null> {
    const usage = await this.limiter.hit('redemption', clientAddress(req), this.config.redemptionRateLimitPerMinute);
    setRateLimitHeaders(res, usage);
    return usage.allowed ? null : { status: 429, retryAfter: usage.resetSeconds };
  }

  /**
   * Counts an unknown token against the address. Once over budget, its unknown tokens are refused
   * with 429, but a real link still opens: someone guessing from a shared address (an office, a
   * carrier NAT) cannot lock the recipients behind it out of their rewards. Guessing stays bounded
   * by the per-address request limit, against 256-bit tokens. docs/operations.md.
   */
  private async miss(req: Request): Promise<Refusal> {
    const misses = await this.limiter.hit('redemption-misses', clientAddress(req), REDEMPTION_MISSES_PER_WINDOW, MISS_WINDOW_MS);
    return misses.allowed ? { status: 404 } : { status: 429, retryAfter: misses.resetSeconds };
  }
}

/**
 * The page's language (docs/recipient-language.md): the one the sender chose for the recipient, else
 * the best of the browser's Accept-Language among those the page speaks, else English.
 */
function pageTexts(chosen: string | null, req: Request): RecipientTexts {
  if (chosen) return recipientTexts(chosen);
  const header = req.headers['accept-language'];
  return recipientTexts(header ? req.acceptsLanguages(...RECIPIENT_LANGUAGES) || null : null);
}

/** The page and its answers hold gift-card credentials: never cached, never indexed. */
function privateResponse(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Robots-Tag', 'noindex, nofollow');
}

function refusalError(refusal: Refusal): Error {
  return refusal.status === 404 ? new NotFoundError('Redemption link') : new RateLimitedError(refusal.retryAfter ?? 60);
}
