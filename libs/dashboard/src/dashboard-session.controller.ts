import { Body, Controller, Delete, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { assertOwnOrigin, CurrentSession, Public, Session, SignedIn } from '@app/auth';
import { ApiErrorResponses } from '@app/core';
import { DashboardCookie } from './dashboard-cookie';
import { DashboardSessionService } from './dashboard-session.service';
import { SessionDto, SignInDto, SignInErrorDto, SwitchAccountDto } from './dto/session.dto';

@ApiTags('Session')
@Controller('dashboard/api/session')
export class DashboardSessionController {
  constructor(
    private readonly sessions: DashboardSessionService,
    private readonly cookie: DashboardCookie,
  ) {}

  @Post()
  @Public()
  @ApiOperation({
    operationId: 'signIn',
    security: [],
    summary: 'Sign in; sets the session cookie',
    description: 'A wrong e-mail or password is one answer (401 `unauthorized`); a user with two-factor sign-in and no `totpCode` gets 401 `totp_required`.',
  })
  @ApiResponse({ status: 201, type: SessionDto })
  @ApiResponse({ status: 401, type: SignInErrorDto, description: 'Wrong e-mail, password or code; or `totp_required`.' })
  @ApiErrorResponses(400, 403, 429, 503)
  async signIn(@Req() req: Request, @Res({ passthrough: true }) res: Response, @Body() body: SignInDto): Promise<SessionDto> {
    // Login CSRF: another site must not sign the browser in to an account of its choosing.
    assertOwnOrigin(req, this.cookie.config.publicBaseUrl);
    const started = await this.sessions.signIn(body, {
      ipAddress: req.ip ?? null,
      previousToken: this.cookie.cookie.valueFrom(req.headers.cookie),
    });
    res.setHeader('Set-Cookie', this.cookie.cookie.header(started.token));
    res.setHeader('Cache-Control', 'no-store');
    return started.body;
  }

  @Get()
  @SignedIn()
  @ApiOperation({ operationId: 'getSession', summary: 'The signed-in user, their accounts and the CSRF token' })
  async get(@CurrentSession() session: Session, @Res({ passthrough: true }) res: Response): Promise<SessionDto> {
    res.setHeader('Cache-Control', 'no-store');
    return this.sessions.body(session);
  }

  @Delete()
  @SignedIn()
  @HttpCode(204)
  @ApiOperation({ operationId: 'signOut', summary: 'Sign out: the session ends on the server' })
  @ApiResponse({ status: 204, description: 'Signed out.' })
  async signOut(@CurrentSession() session: Session, @Res({ passthrough: true }) res: Response): Promise<void> {
    await this.sessions.signOut(session);
    res.setHeader('Set-Cookie', this.cookie.cookie.header(null));
  }

  @Post('account')
  @SignedIn()
  @HttpCode(200)
  @ApiOperation({ operationId: 'switchAccount', summary: 'Act on another of your accounts' })
  @ApiResponse({ status: 200, type: SessionDto })
  @ApiErrorResponses(400, 404)
  switchAccount(
    @CurrentSession() session: Session & { userId: string },
    @Body() body: SwitchAccountDto,
  ): Promise<SessionDto> {
    return this.sessions.switchAccount(session, body.accountId);
  }
}
