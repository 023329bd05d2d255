import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { MembershipRole, UserDirectory } from '@app/account';
import { Public, SignInLimiter } from '@app/auth';
import { AuthorizeSession, AuthorizeSessionStore } from './authorize-session.store';
import { authorizePageCsp, consentPage, errorPage, signInPage } from './authorize-pages';
import { AuthorizationRequest, OAuthAuthorizationService } from './oauth-authorization.service';

/** Connecting an app lets it spend the wallet, so only owners and admins may. */
const ROLES_THAT_CONNECT_APPS: readonly MembershipRole[] = ['owner', 'admin'];

/**
 * The browser side of OAuth at `{auth_url}/oauth/authorize`: sign in, choose an account, review
 * the scopes, approve or deny. Every POST re-validates the whole authorization request.
 */
@ApiExcludeController()
@Public()
@Controller('oauth/authorize')
export class AuthorizeController {
  constructor(
    private readonly authorization: OAuthAuthorizationService,
    private readonly sessions: AuthorizeSessionStore,
    private readonly users: UserDirectory,
    private readonly limiter: SignInLimiter,
  ) {}

  @Get()
  async start(@Req() req: Request, @Res() res: Response): Promise<void> {
    const request = await this.validRequest(req.query, res);
    if (!request) return;
    let session = await this.sessions.find(this.sessions.idFrom(req.headers.cookie));
    if (!session) {
      session = await this.sessions.start(null);
      res.setHeader('Set-Cookie', this.sessions.cookie(session));
    }
    await this.showFormFor(session, request, res);
  }

  @Post('sign-in')
  async signIn(@Req() req: Request, @Res() res: Response): Promise<void> {
    const body = formBody(req);
    const request = await this.validRequest(body, res);
    if (!request) return;
    const session = await this.sessions.find(this.sessions.idFrom(req.headers.cookie));
    if (!this.sessions.csrfMatches(session, body.csrf_token)) return this.expired(res);

    const email = typeof body.email === 'string' ? body.email.trim().toLowerCase() : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const admitted = await this.limiter.admit(req.ip ?? 'unknown', email);
    if (!admitted.allowed) {
      res.setHeader('Retry-After', String(admitted.retryAfterSeconds));
      return this.page(res, 429, errorPage('Too many sign-in attempts', 'Wait a few minutes, then start again from the app.'));
    }
    const user = email && password ? await this.users.verifyPassword(email, password) : null;
    if (!user) {
      await this.limiter.failed(email);
      const html = signInPage(request, session.csrfToken, { error: 'The e-mail or password is not right.', email });
      return this.page(res, 200, html);
    }
    // A fresh session id at sign-in, so an id planted before it is worth nothing after.
    await this.sessions.end(session.id);
    const signedIn = await this.sessions.start(user.id);
    res.setHeader('Set-Cookie', this.sessions.cookie(signedIn));
    res.redirect(303, `/oauth/authorize?${new URLSearchParams(request.params)}`);
  }

  @Post('decision')
  async decide(@Req() req: Request, @Res() res: Response): Promise<void> {
    const body = formBody(req);
    const request = await this.validRequest(body, res);
    if (!request) return;
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
    const location = accountId
      ? await this.authorization.approve(request, session.userId, accountId)
      : this.authorization.deny(request);
    res.redirect(303, location);
  }

  /** The validated request, or null after answering: an error page, or the error sent back to the app. */
  private async validRequest(input: Record<string, unknown>, res: Response): Promise<AuthorizationRequest | null> {
    const check = await this.authorization.check(input);
    if (check.kind === 'valid') return check.request;
    if (check.kind === 'redirect') res.redirect(303, check.location);
    else this.page(res, 400, errorPage('This link to connect an app is not valid', check.message));
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

function formBody(req: Request): Record<string, unknown> {
  return req.is('application/x-www-form-urlencoded') && req.body && typeof req.body === 'object' ? req.body : {};
}
