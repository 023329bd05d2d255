import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { MembershipRole, UserDirectory } from '@app/account';
import { Public } from '@app/auth';
import { inspectBody } from '@app/core';
import { AuthorizeSession, AuthorizeSessionStore } from './authorize-session.store';
import { AuthorizeSignInService, SignInContext, SignInOutcome } from './authorize-sign-in.service';
import { authorizePageCsp, consentPage, errorPage, signInPage, twoFactorPage } from './authorize-pages';
import { AuthorizationRequest, OAuthAuthorizationService } from './oauth-authorization.service';

/** Connecting an app lets it spend the wallet, so only owners and admins may. */
const ROLES_THAT_CONNECT_APPS: readonly MembershipRole[] = ['owner', 'admin'];

/**
 * The browser side of OAuth at `{auth_url}/oauth/authorize`: sign in (password, then a two-factor
 * code for a user who has it on), choose an account, review the scopes, approve or deny. Every POST
 * re-validates the whole authorization request.
 */
@ApiExcludeController()
@Public()
@Controller('oauth/authorize')
export class AuthorizeController {
  constructor(
    private readonly authorization: OAuthAuthorizationService,
    private readonly sessions: AuthorizeSessionStore,
    private readonly signIns: AuthorizeSignInService,
    private readonly users: UserDirectory,
  ) {}

  @Get()
  async start(@Req() req: Request, @Res() res: Response): Promise<void> {
    const request = await this.validRequest(req.query, res);
    if (!request) return;
    const token = this.sessions.idFrom(req.headers.cookie);
    const session = await this.sessions.find(token);
    if (session) return this.showFormFor(session, request, res);
    const pending = await this.sessions.findTwoFactor(token);
    if (pending?.userId) return this.showCodeForm(pending, request, res);
    const started = await this.sessions.start(null);
    res.setHeader('Set-Cookie', this.sessions.cookie(started));
    await this.showFormFor(started, request, res);
  }

  @Post('sign-in')
  async signIn(@Req() req: Request, @Res() res: Response): Promise<void> {
    const body = this.formBody(req, res);
    const request = body && (await this.validRequest(body, res));
    if (!body || !request) return;
    const session = await this.sessions.find(this.sessions.idFrom(req.headers.cookie));
    if (!this.sessions.csrfMatches(session, body.csrf_token)) return this.expired(res);

    const email = typeof body.email === 'string' ? body.email.trim().toLowerCase() : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const outcome = await this.signIns.withPassword(session, email, password, signInContext(req, request));
    if (outcome.kind === 'wrong') {
      return this.page(res, 200, signInPage(request, session.csrfToken, { error: 'The e-mail or password is not right.', email }));
    }
    this.advance(outcome, request, res);
  }

  @Post('two-factor')
  async twoFactor(@Req() req: Request, @Res() res: Response): Promise<void> {
    const body = this.formBody(req, res);
    const request = body && (await this.validRequest(body, res));
    if (!body || !request) return;
    // Only the session a right password started leads here; it names the user, not the form.
    const pending = await this.sessions.findTwoFactor(this.sessions.idFrom(req.headers.cookie));
    if (!this.sessions.csrfMatches(pending, body.csrf_token) || !pending.userId) return this.expired(res);

    const code = typeof body.totp_code === 'string' ? body.totp_code.replace(/\s/g, '') : '';
    const outcome = await this.signIns.withCode({ ...pending, userId: pending.userId }, code, signInContext(req, request));
    if (outcome.kind === 'wrong') {
      return this.showCodeForm(pending, request, res, 'The code is not right, or was already used. Enter the code your app shows now.');
    }
    this.advance(outcome, request, res);
  }

  @Post('decision')
  async decide(@Req() req: Request, @Res() res: Response): Promise<void> {
    const body = this.formBody(req, res);
    const request = body && (await this.validRequest(body, res));
    if (!body || !request) return;
    const session = await this.sessions.find(this.sessions.idFrom(req.headers.cookie));
    if (!this.sessions.csrfMatches(session, body.csrf_token) || !session.userId) return this.expired(res);

    if (body.decision !== 'approve' && body.decision !== 'deny') {
      return this.page(res, 400, errorPage('Approve or deny', 'The form must be sent with decision=approve or decision=deny.'));
    }
    let accountId: string | null = null;
    if (body.decision === 'approve') {
      const accounts = await this.users.accountsOf(session.userId, ROLES_THAT_CONNECT_APPS);
      accountId = accounts.find((candidate) => candidate.id === body.account_id)?.id ?? null;
      if (!accountId) return this.page(res, 400, errorPage('Choose an account', 'Choose one of your accounts to connect, then approve.'));
    }
    // One decision per sign-in: the session ends here, before any code exists, so a shared browser
    // is not left signed in and a replayed or doubled POST gets nothing.
    if (!(await this.sessions.end(session.id))) return this.expired(res);
    res.setHeader('Set-Cookie', this.sessions.cookie(null));
    const approver = { userId: session.userId, email: (await this.users.emailOf(session.userId)) ?? '', ipAddress: req.ip ?? null };
    const location = accountId ? await this.authorization.approve(request, approver, accountId) : this.authorization.deny(request);
    res.redirect(303, location);
  }

  /** After a sign-in step: refused, or a new session (two-factor or signed in) and back to the flow's GET. */
  private advance(outcome: Exclude<SignInOutcome, { kind: 'wrong' }>, request: AuthorizationRequest, res: Response): void {
    if (outcome.kind === 'limited') {
      res.setHeader('Retry-After', String(outcome.retryAfterSeconds));
      return this.page(res, 429, errorPage('Too many sign-in attempts', 'Wait a few minutes, then start again from the app.'));
    }
    if (outcome.kind === 'expired') return this.expired(res);
    res.setHeader('Set-Cookie', this.sessions.cookie(outcome.session));
    res.redirect(303, `/oauth/authorize?${new URLSearchParams(request.params)}`);
  }

  /** The validated request, or null after answering: an error page, or the error sent back to the app. */
  private async validRequest(input: Record<string, unknown>, res: Response): Promise<AuthorizationRequest | null> {
    const check = await this.authorization.check(input);
    if (check.kind === 'valid') return check.request;
    if (check.kind === 'redirect') res.redirect(303, check.location);
    else this.page(res, 400, errorPage('This link to connect an app is not valid', check.message));
    return null;
  }

  /**
   * The posted form, or null after answering 400: a NUL character (U+0000) fits no field, and
   * PostgreSQL would refuse it in a query (the service-wide check reads JSON bodies only).
   */
  private formBody(req: Request, res: Response): Record<string, unknown> | null {
    const body: Record<string, unknown> =
      req.is('application/x-www-form-urlencoded') && req.body && typeof req.body === 'object' ? req.body : {};
    if (!inspectBody(body)) return body;
    this.page(res, 400, errorPage('This form cannot be read', 'It contains a character no field accepts (NUL). Start again from the app.'));
    return null;
  }

  private async showFormFor(session: AuthorizeSession, request: AuthorizationRequest, res: Response): Promise<void> {
    if (!session.userId) return this.page(res, 200, signInPage(request, session.csrfToken), request.redirectUri);
    const [accounts, email] = await Promise.all([
      this.users.accountsOf(session.userId, ROLES_THAT_CONNECT_APPS),
      this.users.emailOf(session.userId),
    ]);
    this.page(res, 200, consentPage(request, session.csrfToken, email ?? '', accounts), request.redirectUri);
  }

  private async showCodeForm(pending: AuthorizeSession, request: AuthorizationRequest, res: Response, error?: string): Promise<void> {
    const email = (await this.users.emailOf(pending.userId!)) ?? '';
    this.page(res, 200, twoFactorPage(request, pending.csrfToken, email, { error }));
  }

  private expired(res: Response): void {
    this.page(res, 403, errorPage('This form has expired', 'Start again from the app that sent you here.'));
  }

  private page(res: Response, status: number, html: string, redirectUri?: string): void {
    res.status(status);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    // The pages carry CSRF tokens and account names: never cached, never framed.
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Content-Security-Policy', authorizePageCsp(redirectUri));
    res.send(html);
  }
}

function signInContext(req: Request, request: AuthorizationRequest): SignInContext {
  return { ipAddress: req.ip ?? null, clientId: request.client.id };
}
