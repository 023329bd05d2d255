import { BadRequestError } from '@app/core';
import { COMMON_PASSWORDS } from './common-passwords';

export const MIN_PASSWORD_LENGTH = 12;

const COMMON = new Set(
  COMMON_PASSWORDS.split('\n')
    .map((line) => line.trim().toLowerCase())
    .filter(Boolean),
);

/**
 * A new password (invitation, change, reset): long enough, and not one of the passwords attackers
 * try first (docs/dashboard.md). Compared without case, so `Password1234` is as weak as `password1234`.
 */
export function assertAcceptablePassword(password: string, field: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new BadRequestError([{ path: field, message: `must be at least ${MIN_PASSWORD_LENGTH} characters` }]);
  }
  if (COMMON.has(password.toLowerCase())) {
    throw new BadRequestError([{ path: field, message: 'is one of the most common passwords; choose another' }]);
  }
}

/** How many passwords are refused as common (the list ships with the code). */
export const COMMON_PASSWORD_COUNT = COMMON.size;
