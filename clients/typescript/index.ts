import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

/**
 * A typed client for the Rewards API, generated from openapi.yaml (`npm run openapi` rewrites
 * schema.d.ts): paths, parameters, bodies and answers are checked by the compiler, so a contract
 * change that breaks a caller breaks its build. Nothing here is written by hand but this wrapper.
 */
export type RewardsClient = Client<paths>;
export type { components, operations, paths };
export type Schemas = components['schemas'];

export interface RewardsClientOptions extends Omit<ClientOptions, 'baseUrl' | 'headers'> {
  /** The deployment's PUBLIC_BASE_URL, e.g. `https://rewards.example.com`. */
  baseUrl: string;
  /** An `sk_` API key or an OAuth access token. */
  token: string;
  headers?: Record<string, string>;
}

export function createRewardsClient({ baseUrl, token, headers, ...options }: RewardsClientOptions): RewardsClient {
  return createClient<paths>({ ...options, baseUrl, headers: { ...headers, Authorization: `Bearer ${token}` } });
}
