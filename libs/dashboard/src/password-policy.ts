import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BadRequestError } from '@app/core';

export const MIN_PASSWORD_LENGTH = 12;

/**
 * About a thousand of the passwords that top the public lists compiled from breached password dumps
 * (digit runs, keyboard walks, `password` with a suffix, names, teams, pets, years), one per line in
 * common-passwords.txt, read once when the app starts (`nest build` copies it: nest-cli.json, assets).
 * Most are shorter than the minimum anyway; the list matters for the long ones (`password1234`, ...).
 */
const COMMON = new Set(
  readFileSync(join(__dirname, 'common-passwords.txt'), 'utf8')
    .split('\n')
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
