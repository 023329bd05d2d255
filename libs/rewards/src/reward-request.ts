import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { Principal } from '@app/auth';
import { BadRequestError, FieldIssue, inputShapeIssues, toFieldIssues } from '@app/core';
import { CreateRewardDto } from './dto/create-reward.dto';
import type { RewardSource } from './entities/reward.entity';

/** Rules across fields that class-validator decorators cannot say (400 with issues). */
export function crossFieldIssues(dto: CreateRewardDto, now = Date.now()): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (dto.deliverAt !== undefined) for (const issue of deliverAtIssues(dto, now)) issues.push(issue);
  if (dto.type === 'FIXED') {
    if (dto.utid === undefined) issues.push({ path: 'utid', message: 'utid is required for FIXED rewards' });
    if (dto.allowedBrandKeys !== undefined) issues.push({ path: 'allowedBrandKeys', message: 'allowedBrandKeys is only for CHOICE rewards' });
    if (dto.expiresAt !== undefined) issues.push({ path: 'expiresAt', message: 'expiresAt is only for CHOICE rewards' });
  } else {
    if (dto.utid !== undefined) issues.push({ path: 'utid', message: 'utid is only for FIXED rewards; use allowedBrandKeys to restrict a CHOICE reward' });
    if (dto.expiresAt !== undefined && new Date(dto.expiresAt).getTime() <= now) {
      issues.push({ path: 'expiresAt', message: 'expiresAt must be in the future' });
    }
  }
  return issues;
}

/** The earliest and latest a scheduled send may be delivered, from the time of the request. */
export const DELIVER_AT_MIN_AHEAD_MS = 60_000;
export const DELIVER_AT_MAX_AHEAD_MS = 365 * 24 * 3600 * 1000;

/** `deliverAt`: 60 s to 365 days ahead, and before `expiresAt` (docs/delivery.md, Scheduled sends). */
function deliverAtIssues(dto: CreateRewardDto, now: number): FieldIssue[] {
  const at = new Date(dto.deliverAt!).getTime();
  if (at < now + DELIVER_AT_MIN_AHEAD_MS) return [{ path: 'deliverAt', message: 'deliverAt must be at least 60 seconds in the future; omit it to send now' }];
  if (at > now + DELIVER_AT_MAX_AHEAD_MS) return [{ path: 'deliverAt', message: 'deliverAt must be at most 365 days in the future' }];
  if (dto.expiresAt !== undefined && new Date(dto.expiresAt).getTime() <= at) {
    return [{ path: 'expiresAt', message: 'expiresAt must be later than deliverAt' }];
  }
  return [];
}

/** Validates one bulk item as the global pipe validates a single request; throws BadRequestError. */
export async function parseRewardRequest(value: unknown, now = Date.now()): Promise<CreateRewardDto> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new BadRequestError([{ path: 'body', message: 'each reward must be an object' }]);
  }
  // As the global pipe does: a non-object nested field or a null optional one is refused before transforming.
  const shape = inputShapeIssues(value, CreateRewardDto);
  if (shape.length) throw new BadRequestError(shape);
  const dto = plainToInstance(CreateRewardDto, value);
  const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true });
  const issues = errors.length ? toFieldIssues(errors) : crossFieldIssues(dto, now);
  if (issues.length) throw new BadRequestError(issues);
  return dto;
}

/** The service sets `source` (docs/rewards.md, Types); OAuth tokens and the dashboard win over the endpoint. */
export function sourceOf(principal: Principal, bulk: boolean): RewardSource {
  if (principal.credentialKind === 'oauth_token') return 'oauth';
  if (principal.credentialKind === 'session') return 'dashboard';
  return bulk ? 'bulk' : 'api';
}
