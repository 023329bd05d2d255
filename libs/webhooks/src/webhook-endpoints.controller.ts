import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AuditOrigin, CurrentAuditOrigin } from '@app/audit';
import { CurrentPrincipal, Principal, RequireScope } from '@app/auth';
import { ApiBodyExamples, ApiErrorResponses } from '@app/core';
import {
  toWebhookDeliveryAttemptDto,
  toWebhookDeliveryDto,
  WebhookDeliveriesQueryDto,
  WebhookDeliveryDetailDto,
  WebhookDeliveryListDto,
  WebhookDeliveryResponseDto,
} from './dto/webhook-delivery.dto';
import {
  CREATE_WEBHOOK_ENDPOINT_EXAMPLES,
  CreateWebhookEndpointDto,
  ROTATE_WEBHOOK_SECRET_EXAMPLES,
  RotateWebhookSecretDto,
  toWebhookEndpointDto,
  UPDATE_WEBHOOK_ENDPOINT_EXAMPLES,
  UpdateWebhookEndpointDto,
  WebhookEndpointListDto,
  WebhookEndpointResponseDto,
  WebhookEndpointsQueryDto,
  WebhookEndpointWithSecretDto,
} from './dto/webhook-endpoint.dto';
import { REPLAY_EVENTS_EXAMPLES, ReplayEventsDto, ReplayResponseDto } from './events/event.dto';
import { ReplaysService } from './events/replays.service';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookEndpointsService } from './webhook-endpoints.service';

/** Path ids, as the examples of /docs show them. */
const ENDPOINT_ID = { name: 'id', description: "The endpoint's id (`we_`).", example: 'we_kZVd828Ugm8h7PZb2XPcVW' };
const DELIVERY_ID = { name: 'deliveryId', description: "The delivery's id (`whd_`).", example: 'whd_3jI5ekoWyImM1q8BKD2Bde' };

@ApiTags('Webhooks')
@Controller('v1/webhook-endpoints')
export class WebhookEndpointsController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly deliveries: WebhookDeliveriesService,
    private readonly replays: ReplaysService,
  ) {}

  @Post()
  @HttpCode(201)
  @RequireScope('webhooks:write')
  @ApiOperation({
    operationId: 'createWebhookEndpoint',
    summary: 'Register a webhook endpoint',
    description: 'The response carries the signing secret (`whsec_`); it is never shown again. Store it now.',
  })
  @ApiBodyExamples(CreateWebhookEndpointDto, CREATE_WEBHOOK_ENDPOINT_EXAMPLES)
  @ApiErrorResponses(400)
  async create(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Body() body: CreateWebhookEndpointDto,
  ): Promise<WebhookEndpointWithSecretDto> {
    const { endpoint, secret } = await this.endpoints.create(principal.accountId, body, origin);
    return { webhookEndpoint: toWebhookEndpointDto(endpoint), secret };
  }

  @Get()
  @RequireScope('webhooks:read')
  @ApiOperation({ operationId: 'listWebhookEndpoints', summary: 'Webhook endpoints, newest first' })
  @ApiErrorResponses(400)
  async list(@CurrentPrincipal() principal: Principal, @Query() query: WebhookEndpointsQueryDto): Promise<WebhookEndpointListDto> {
    const { items, total } = await this.endpoints.list(principal.accountId, query.page, query.page_size);
    return { webhookEndpoints: items.map(toWebhookEndpointDto), total };
  }

  @Get(':id')
  @RequireScope('webhooks:read')
  @ApiOperation({ operationId: 'getWebhookEndpoint', summary: 'One webhook endpoint (never its secret)' })
  @ApiParam(ENDPOINT_ID)
  @ApiErrorResponses(404)
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<WebhookEndpointResponseDto> {
    return { webhookEndpoint: toWebhookEndpointDto(await this.endpoints.get(principal.accountId, id)) };
  }

  @Patch(':id')
  @RequireScope('webhooks:write')
  @ApiOperation({
    operationId: 'updateWebhookEndpoint',
    summary: 'Change the URL, subscription, description, or pause/resume',
    description:
      '`active: false` pauses the endpoint without deleting it: nothing is sent to it while paused, and its deliveries ' +
      '(pending ones and those of events that happen meanwhile) wait. `active: true` resumes it and sends them all.',
  })
  @ApiBodyExamples(UpdateWebhookEndpointDto, UPDATE_WEBHOOK_ENDPOINT_EXAMPLES)
  @ApiParam(ENDPOINT_ID)
  @ApiErrorResponses(400, 404)
  async update(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Param('id') id: string,
    @Body() body: UpdateWebhookEndpointDto,
  ): Promise<WebhookEndpointResponseDto> {
    return { webhookEndpoint: toWebhookEndpointDto(await this.endpoints.update(principal.accountId, id, body, origin)) };
  }

  @Delete(':id')
  @HttpCode(204)
  @RequireScope('webhooks:write')
  @ApiOperation({ operationId: 'deleteWebhookEndpoint', summary: 'Remove a webhook endpoint and its delivery history' })
  @ApiParam(ENDPOINT_ID)
  @ApiErrorResponses(404)
  async remove(@CurrentPrincipal() principal: Principal, @CurrentAuditOrigin() origin: AuditOrigin, @Param('id') id: string): Promise<void> {
    await this.endpoints.remove(principal.accountId, id, origin);
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @RequireScope('webhooks:write')
  @ApiOperation({
    operationId: 'rotateWebhookSecret',
    summary: 'Issue a new signing secret',
    description:
      'The new secret is shown only in this response. With `keepPreviousForSeconds` (up to 86400) the old secret stays valid ' +
      'that long, and each delivery carries both signatures: `X-Webhook-Signature: v1=<new> v1=<old>`.',
  })
  // The body is optional: without one the old secret stops working at once.
  @ApiBodyExamples(RotateWebhookSecretDto, ROTATE_WEBHOOK_SECRET_EXAMPLES, { required: false })
  @ApiParam(ENDPOINT_ID)
  @ApiErrorResponses(400, 404)
  async rotate(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Param('id') id: string,
    @Body() body: RotateWebhookSecretDto,
  ): Promise<WebhookEndpointWithSecretDto> {
    const { endpoint, secret } = await this.endpoints.rotateSecret(principal.accountId, id, body.keepPreviousForSeconds ?? 0, origin);
    return { webhookEndpoint: toWebhookEndpointDto(endpoint), secret };
  }

  @Post(':id/test')
  @HttpCode(202)
  @RequireScope('webhooks:write')
  @ApiOperation({
    operationId: 'testWebhookEndpoint',
    summary: 'Queue a signed `ping` event to this endpoint',
    description: 'The ping carries `data: {webhookEndpointId}` and is signed and retried like any event. A paused endpoint answers 422.',
  })
  @ApiParam(ENDPOINT_ID)
  @ApiErrorResponses(404, 422)
  async test(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<WebhookDeliveryResponseDto> {
    return { delivery: toWebhookDeliveryDto(await this.deliveries.ping(principal.accountId, id)) };
  }

  @Get(':id/deliveries')
  @RequireScope('webhooks:read')
  @ApiOperation({ operationId: 'listWebhookDeliveries', summary: 'Deliveries to this endpoint, newest first, with the body sent' })
  @ApiParam(ENDPOINT_ID)
  @ApiErrorResponses(400, 404)
  async listDeliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: WebhookDeliveriesQueryDto,
  ): Promise<WebhookDeliveryListDto> {
    const { items, total } = await this.deliveries.list(principal.accountId, id, query.page, query.page_size);
    return { deliveries: items.map(toWebhookDeliveryDto), total };
  }

  @Get(':id/deliveries/:deliveryId')
  @RequireScope('webhooks:read')
  @ApiOperation({ operationId: 'getWebhookDelivery', summary: 'One delivery with every attempt: status, timing and error' })
  @ApiParam(ENDPOINT_ID)
  @ApiParam(DELIVERY_ID)
  @ApiErrorResponses(404)
  async getDelivery(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
  ): Promise<WebhookDeliveryDetailDto> {
    const { delivery, attempts } = await this.deliveries.get(principal.accountId, id, deliveryId);
    return { delivery: toWebhookDeliveryDto(delivery), attempts: attempts.map(toWebhookDeliveryAttemptDto) };
  }

  @Post(':id/deliveries/:deliveryId/retry')
  @HttpCode(202)
  @RequireScope('webhooks:write')
  @ApiOperation({
    operationId: 'retryWebhookDelivery',
    summary: 'Send a finished delivery again',
    description:
      'For a FAILED (or SUCCEEDED) delivery: one more attempt now, with the same event id and body. ' +
      'A PENDING delivery is already scheduled, and a paused endpoint sends nothing: both answer 422.',
  })
  @ApiParam(ENDPOINT_ID)
  @ApiParam(DELIVERY_ID)
  @ApiErrorResponses(404, 422)
  async retry(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
  ): Promise<WebhookDeliveryResponseDto> {
    return { delivery: toWebhookDeliveryDto(await this.deliveries.retry(principal.accountId, id, deliveryId)) };
  }

  @Post(':id/replay')
  @HttpCode(202)
  @RequireScope('webhooks:write')
  @ApiOperation({
    operationId: 'replayWebhookEvents',
    summary: 'Deliver the events of a time range again, to this endpoint only',
    description:
      'Every event created in `[createdGte, createdLt)` that the endpoint subscribes to is delivered again, with its original ' +
      '`evt_` id and body (receivers that dedupe by id ignore what they already have). The range lies within the last 30 days ' +
      'and spans at most 366 days (default: the last 30 days up to now); a start at or after the end is 400. Deliveries are ' +
      'created in paced batches, so live deliveries never wait behind a large replay. A paused endpoint answers 422.',
  })
  @ApiBodyExamples(ReplayEventsDto, REPLAY_EVENTS_EXAMPLES, { required: false })
  @ApiParam(ENDPOINT_ID)
  @ApiErrorResponses(400, 404, 422)
  async replay(
    @CurrentPrincipal() principal: Principal,
    @CurrentAuditOrigin() origin: AuditOrigin,
    @Param('id') id: string,
    @Body() body: ReplayEventsDto,
  ): Promise<ReplayResponseDto> {
    return { replay: await this.replays.request(principal.accountId, id, body ?? {}, origin) };
  }
}
