import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, RequireScope } from '@app/auth';
import { ApiErrorResponses } from '@app/core';
import { EventListDto, EventResponseDto, EventsQueryDto } from './event.dto';
import { EventsService } from './events.service';

@ApiTags('Webhooks')
@Controller('v1/events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @RequireScope('webhooks:read')
  @ApiOperation({
    operationId: 'listEvents',
    summary: 'Events of the last 30 days, newest first',
    description:
      'The events webhooks deliver, whether or not an endpoint received them: filtered by `type` and a creation range ' +
      '(`created_gte` / `created_lt`, at most 366 days; nothing older than 30 days is kept). Walk older pages with ' +
      '`starting_after` set to the last id of a page while `hasMore` is true.',
  })
  @ApiErrorResponses(400)
  async list(@CurrentPrincipal() principal: Principal, @Query() query: EventsQueryDto): Promise<EventListDto> {
    return this.events.list(principal.accountId, {
      type: query.type,
      createdGte: query.created_gte,
      createdLt: query.created_lt,
      startingAfter: query.starting_after,
      limit: query.limit,
    });
  }

  @Get(':id')
  @RequireScope('webhooks:read')
  @ApiOperation({ operationId: 'getEvent', summary: 'One event of the last 30 days' })
  @ApiParam({ name: 'id', description: "The event's id (`evt_`), as its webhook deliveries carry it.", example: 'evt_4uVYk2MZ1pX9bq3Tn7cLrD' })
  @ApiErrorResponses(404)
  async get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<EventResponseDto> {
    return { event: await this.events.get(principal.accountId, id) };
  }
}
