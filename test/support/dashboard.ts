import { DataSource } from 'typeorm';
import { PasswordHasher } from '@app/account';
import type { Role } from '@app/auth';
import { newId, randomToken } from '@app/core';
import { DashboardClient } from './dashboard-client';
import type { TestApp } from './test-app';

export const MEMBER_PASSWORD = 'a long member passphrase 42';
let memberHash: Promise<string> | undefined;

/** A user with `role` in the account, as an accepted invitation leaves them (made directly, to keep tests short). */
export async function addMember(t: TestApp, accountId: string, role: Role): Promise<{ userId: string; email: string; password: string }> {
  const dataSource = t.app.get(DataSource);
  const userId = newId('usr');
  const email = `${role}-${randomToken(6).toLowerCase()}@example.test`;
  memberHash ??= t.app.get(PasswordHasher).hash(MEMBER_PASSWORD);
  await dataSource.query(`INSERT INTO users (id, email, password_hash) VALUES ($1, $2, $3)`, [userId, email, await memberHash]);
  await dataSource.query(`INSERT INTO memberships (account_id, user_id, role) VALUES ($1, $2, $3)`, [accountId, userId, role]);
  return { userId, email, password: MEMBER_PASSWORD };
}

/** A dashboard client signed in as this person. */
export async function signedIn(t: TestApp, person: { email: string; password: string }): Promise<DashboardClient> {
  const client = new DashboardClient(t.baseUrl);
  await client.signIn(person.email, person.password);
  return client;
}
