import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import {
  assertOwnOrigin,
  assertSameSiteRequest,
  CurrentPrincipal,
  Principal,
  Public,
  RequireDashboardScope,
  SessionStore,
} from '@app/auth';
import { TeamService } from '@app/account';
import { ApiErrorResponses, SecretParams } from '@app/core';
import { actorOf } from './audit-context';
import { DashboardCookie } from './dashboard-cookie';
import { SessionDto } from './dto/session.dto';
import {
  AcceptInvitationDto,
  ChangeRoleDto,
  CreateInvitationDto,
  InvitationListDto,
  InvitationPreviewResponseDto,
  InvitationResponseDto,
  MemberListDto,
  MemberResponseDto,
} from './dto/team.dto';
import { InvitationsService } from './invitations.service';

@ApiTags('Team')
@Controller('dashboard/api/members')
export class MembersController {
  constructor(private readonly team: TeamService) {}

  @Get()
  @RequireDashboardScope('team:manage')
  @ApiOperation({ operationId: 'listMembers', summary: 'The members of the current account, newest first' })
  async list(@CurrentPrincipal() principal: Principal): Promise<MemberListDto> {
    return { members: await this.team.list(principal.accountId) };
  }

  @Patch(':userId')
  @RequireDashboardScope('team:manage')
  @ApiOperation({
    operationId: 'changeMemberRole',
    summary: "Change a member's role",
    description: 'Only an owner may make or demote an owner (403); the last owner cannot be demoted (422).',
  })
  @ApiErrorResponses(400, 404, 422)
  async changeRole(
    @CurrentPrincipal() principal: Principal,
    @Req() req: Request,
    @Param('userId') userId: string,
    @Body() body: ChangeRoleDto,
  ): Promise<MemberResponseDto> {
    return { member: await this.team.changeRole(principal, actorOf(principal, req.ip), userId, body.role) };
  }

  @Delete(':userId')
  @RequireDashboardScope('team:manage')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'removeMember',
    summary: 'Remove a member; their open sessions lose the account at once',
    description: 'Only an owner may remove an owner (403); the last owner cannot be removed (422).',
  })
  @ApiResponse({ status: 204, description: 'Removed.' })
  @ApiErrorResponses(404, 422)
  async remove(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Param('userId') userId: string): Promise<void> {
    await this.team.remove(principal, actorOf(principal, req.ip), userId);
  }
}

@ApiTags('Team')
@Controller('dashboard/api/invitations')
export class InvitationsController {
  constructor(
    private readonly invitations: InvitationsService,
    private readonly sessions: SessionStore,
    private readonly cookie: DashboardCookie,
  ) {}

  @Get()
  @RequireDashboardScope('team:manage')
  @ApiOperation({ operationId: 'listInvitations', summary: 'Pending invitations, newest first' })
  async list(@CurrentPrincipal() principal: Principal): Promise<InvitationListDto> {
    return { invitations: await this.invitations.list(principal.accountId) };
  }

  @Post()
  @RequireDashboardScope('team:manage')
  @ApiOperation({
    operationId: 'createInvitation',
    summary: 'Invite someone by e-mail',
    description: 'Sends a link valid once, for 7 days. Only an owner may invite an owner (403).',
  })
  @ApiResponse({ status: 201, type: InvitationResponseDto })
  @ApiErrorResponses(400, 422)
  async create(
    @CurrentPrincipal() principal: Principal,
    @Req() req: Request,
    @Body() body: CreateInvitationDto,
  ): Promise<InvitationResponseDto> {
    return { invitation: await this.invitations.create(principal, actorOf(principal, req.ip), body) };
  }

  // One path parameter name for both `/invitations/{...}` routes, so the two paths are not ambiguous.
  @Delete(':invitation')
  @RequireDashboardScope('team:manage')
  @HttpCode(204)
  @ApiOperation({ operationId: 'revokeInvitation', summary: 'Revoke a pending invitation: its link stops working' })
  @ApiParam({ name: 'invitation', description: "The invitation's id (`inv_`)." })
  @ApiResponse({ status: 204, description: 'Revoked.' })
  @ApiErrorResponses(404)
  async revoke(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Param('invitation') id: string): Promise<void> {
    await this.invitations.revoke(principal.accountId, actorOf(principal, req.ip), id);
  }

  @Post(':invitation/resend')
  @RequireDashboardScope('team:manage')
  @ApiOperation({
    operationId: 'resendInvitation',
    summary: 'Send a pending invitation again',
    description: 'A new link valid 7 days from now is e-mailed; the earlier link stops working. Not pending (accepted, revoked, expired): 404.',
  })
  @ApiParam({ name: 'invitation', description: "The invitation's id (`inv_`)." })
  @ApiResponse({ status: 201, type: InvitationResponseDto })
  @ApiErrorResponses(404)
  async resend(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Param('invitation') id: string): Promise<InvitationResponseDto> {
    return { invitation: await this.invitations.resend(principal.accountId, actorOf(principal, req.ip), id) };
  }

  @SecretParams('invitation')
  @Get(':invitation')
  @Public()
  @ApiOperation({ operationId: 'getInvitation', summary: "An invitation by its link's token (no session needed)", security: [] })
  @ApiParam({ name: 'invitation', description: 'The token of the invitation link.' })
  @ApiErrorResponses(404)
  preview(@Param('invitation') token: string): Promise<InvitationPreviewResponseDto> {
    return this.invitations.preview(token).then((invitation) => ({ invitation }));
  }

  @SecretParams('invitation')
  @Post(':invitation/accept')
  @Public()
  @ApiParam({ name: 'invitation', description: 'The token of the invitation link.' })
  @ApiOperation({
    security: [],
    operationId: 'acceptInvitation',
    summary: 'Accept: a new user with a password, or the signed-in user with that e-mail',
    description: 'A new user is signed in (the session cookie is set). A used, revoked or expired token: 404.',
  })
  @ApiResponse({ status: 201, type: SessionDto })
  @ApiErrorResponses(400, 401, 403, 404, 429, 503)
  async accept(
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
    @Param('invitation') token: string,
    @Body() body: AcceptInvitationDto,
  ): Promise<SessionDto> {
    assertOwnOrigin(req, this.cookie.config.publicBaseUrl);
    const session = await this.sessions.find('dashboard', this.cookie.cookie.valueFrom(req.headers.cookie));
    // Accepting with a session changes what that session may do: the same CSRF rule as any change.
    if (session) assertSameSiteRequest(req, session.csrfToken, this.cookie.config.publicBaseUrl);
    const accepted = await this.invitations.accept(token, body, { session, ipAddress: req.ip ?? null });
    if (accepted.token) res.setHeader('Set-Cookie', this.cookie.cookie.header(accepted.token));
    return accepted.body;
  }
}
