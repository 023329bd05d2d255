import { join } from 'node:path';
import { Contract, readOpenApi, sharedContract } from './contract';
import type { ApiResponse } from './api-client';

export const DASHBOARD_OPENAPI_PATH = join(__dirname, '..', '..', 'openapi.dashboard.yaml');

let dashboardContract: Contract | undefined;
const contractFor = (path: string) =>
  path.startsWith('/dashboard/api') ? (dashboardContract ??= new Contract(readOpenApi(DASHBOARD_OPENAPI_PATH))) : sharedContract();

export interface DashboardRequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Leave out the X-CSRF-Token header the client otherwise adds to changes. */
  noCsrf?: boolean;
}

/**
 * A browser-like client of the dashboard: it keeps the session cookie it is given, sends the CSRF
 * token of the last session body on every change, and checks each response against the committed
 * contract (openapi.dashboard.yaml for /dashboard/api, openapi.yaml for the rest).
 */
export class DashboardClient {
  cookie: string | null = null;
  csrfToken: string | null = null;
  /** Every Set-Cookie the server sent, last one last. */
  readonly setCookies: string[] = [];

  constructor(readonly baseUrl: string) {}

  get<T = any>(path: string, options?: DashboardRequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options?: DashboardRequestOptions) {
    return this.request<T>('POST', path, { ...options, body });
  }
  patch<T = any>(path: string, body?: unknown, options?: DashboardRequestOptions) {
    return this.request<T>('PATCH', path, { ...options, body });
  }
  delete<T = any>(path: string, options?: DashboardRequestOptions) {
    return this.request<T>('DELETE', path, options);
  }

  /** Signs in; throws unless it worked. */
  async signIn(email: string, password: string, totpCode?: string): Promise<ApiResponse> {
    const response = await this.post('/dashboard/api/session', { email, password, ...(totpCode ? { totpCode } : {}) });
    if (response.status !== 201) throw new Error(`sign-in failed: ${response.status} ${response.text}`);
    return response;
  }

  async request<T = any>(method: string, path: string, options: DashboardRequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookie) headers.cookie = this.cookie;
    if (method !== 'GET' && this.csrfToken && !options.noCsrf) headers['x-csrf-token'] ??= this.csrfToken;
    let payload: string | undefined;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body: payload });
    for (const setCookie of response.headers.getSetCookie()) {
      this.setCookies.push(setCookie);
      const [pair] = setCookie.split(';');
      this.cookie = /=$/.test(pair) ? null : pair;
    }
    const text = await response.text();
    const contentType = response.headers.get('content-type');
    const body = contentType?.includes('json') && text ? JSON.parse(text) : text || undefined;
    if (body && typeof body === 'object' && typeof (body as { csrfToken?: unknown }).csrfToken === 'string') {
      this.csrfToken = (body as { csrfToken: string }).csrfToken;
    }
    contractFor(path).check(method, path, response.status, contentType, body);
    return { status: response.status, headers: response.headers, body, text };
  }
}
