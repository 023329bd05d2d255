import { Body, Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { assertOwnOrigin, clientAddress, CurrentSession, Public, Session, SignedIn } from '@app/auth';
import { ApiErrorResponses, APP_CONFIG, AppConfig, SecretParams, UnauthorizedError } from '@app/core';
import { Inject } from '@nestjs/common';
import { ActorContext } from './audit-context';
import { ChangePasswordDto, PasswordResetDto, PasswordResetRequestDto, TotpCodeDto, TotpSetupDto } from './dto/security.dto';
import { PasswordService } from './password.service';
import { TotpService, UserDirectory } from '@app/account';

@ApiTags('Own security')
@Controller('dashboard/api/me')
export class MeController {
  constructor(
    private readonly passwords: PasswordService,
    private readonly totp: TotpService,
    private readonly users: UserDirectory,
  ) {}

  @Post('password')
  @SignedIn()
  @HttpCode(204)
  @ApiOperation({ operationId: 'changePassword', summary: 'Change your password; your other sessions end' })
  @ApiResponse({ status: 204, description: 'Changed.' })
  @ApiErrorResponses(400, 403, 429, 503)
  async changePassword(@CurrentSession() session: Session & { userId: string }, @Req() req: Request, @Body() body: ChangePasswordDto): Promise<void> {
    await this.passwords.change(await this.actor(session, req), session.id, body.currentPassword, body.newPassword);
  }

  @Post('totp')
  @SignedIn()
  @HttpCode(200)
  @ApiOperation({ operationId: 'startTotp', summary: 'Start two-factor set-up: a new secret, pending until confirmed' })
  @ApiResponse({ status: 200, type: TotpSetupDto })
  @ApiErrorResponses(422)
  async startTotp(@CurrentSession() session: Session & { userId: string }, @Req() req: Request): Promise<TotpSetupDto> {
    const actor = await this.actor(session, req);
    return this.totp.begin(actor.userId, actor.email);
  }

  @Post('totp/confirm')
  @SignedIn()
  @HttpCode(204)
  @ApiOperation({ operationId: 'confirmTotp', summary: 'Confirm with a code: two-factor sign-in is then required' })
  @ApiResponse({ status: 204, description: 'Two-factor sign-in is on.' })
  @ApiErrorResponses(400, 422)
  async confirmTotp(@CurrentSession() session: Session & { userId: string }, @Req() req: Request, @Body() body: TotpCodeDto): Promise<void> {
    await this.totp.confirm(await this.actor(session, req), body.code);
  }

  @Post('totp/disable')
  @SignedIn()
  @HttpCode(204)
  @ApiOperation({ operationId: 'disableTotp', summary: 'Turn two-factor sign-in off, with a current code' })
  @ApiResponse({ status: 204, description: 'Two-factor sign-in is off.' })
  @ApiErrorResponses(400, 422, 429)
  async disableTotp(@CurrentSession() session: Session & { userId: string }, @Req() req: Request, @Body() body: TotpCodeDto): Promise<void> {
    await this.totp.disable(await this.actor(session, req), body.code);
  }

  private async actor(session: Session & { userId: string }, req: Request): Promise<ActorContext> {
    // One read of the user's e-mail (for the audit log), not the whole session body.
    const email = await this.users.emailOf(session.userId);
    if (email === null) throw new UnauthorizedError('Not signed in, or the session has ended.');
    return { userId: session.userId, email, ipAddress: clientAddress(req) };
  }
}

@ApiTags('Own security')
@Public()
@Controller('dashboard/api/password-reset')
export class PasswordResetController {
  constructor(
    private readonly passwords: PasswordService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({ operationId: 'requestPasswordReset', security: [], summary: 'E-mail a reset link, if the address has a user; the answer is the same either way' })
  @ApiResponse({ status: 202, description: 'Accepted.' })
  @ApiErrorResponses(400, 403, 429)
  async request(@Req() req: Request, @Body() body: PasswordResetRequestDto): Promise<void> {
    assertOwnOrigin(req, this.config.publicBaseUrl);
    await this.passwords.requestReset(body.email, req.ip ?? null);
  }

  @SecretParams('token')
  @Post(':token')
  @HttpCode(204)
  @ApiOperation({ operationId: 'resetPassword', security: [], summary: 'Set a new password with a reset link: every session of the user ends' })
  @ApiResponse({ status: 204, description: 'Password set.' })
  @ApiErrorResponses(400, 403, 404, 429, 503)
  async reset(@Req() req: Request, @Param('token') token: string, @Body() body: PasswordResetDto): Promise<void> {
    assertOwnOrigin(req, this.config.publicBaseUrl);
    await this.passwords.reset(token, body.password, req.ip ?? null);
  }
}
