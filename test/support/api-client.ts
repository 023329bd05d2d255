import { sharedContract as contract } from './contract';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as-is, for malformed-body tests. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Overrides the client's credential; `null` sends none. */
  token?: string | null;
}

/**
 * Real HTTP against the running app, and every response checked against openapi.yaml: a test
 * that gets a response the contract does not describe fails, whatever it asserts itself.
 */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string | null = null,
  ) {}

  as(token: string | null): ApiClient {
    return new ApiClient(this.baseUrl, token);
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...options, body });
  }
  patch<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', path, { ...options, body });
  }
  put<T = any>(path: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PUT', path, { ...options, body });
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? this.token : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let payload: string | undefined = options.rawBody;
    if (options.body !== undefined) payload = JSON.stringify(options.body);
    if (payload !== undefined) headers['content-type'] ??= 'application/json';
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body: payload });
    const text = await response.text();
    const contentType = response.headers.get('content-type');
    const body = contentType?.includes('json') && text ? JSON.parse(text) : text || undefined;
    contract().check(method, path, response.status, contentType, body, response.headers);
    return { status: response.status, headers: response.headers, body, text };
  }
}
