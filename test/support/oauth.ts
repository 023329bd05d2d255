import * as oauth from 'oauth4webapi';
import { OAuthClientService } from '@app/oauth';
import type { SeededMerchant, TestApp } from './test-app';

/**
 * The app side of OAuth, driven by oauth4webapi (a strict, spec-following client), and a minimal
 * browser (cookie jar, no JavaScript, redirects not followed) for the merchant's side.
 */
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

export interface RegisteredApp {
  client: oauth.Client;
  clientId: string;
  clientSecret: string;
  auth: oauth.ClientAuth;
  redirectUri: string;
  as: oauth.AuthorizationServer;
}

let appSeq = 0;

export async function registerApp(t: TestApp, scopes: string[], redirectUri?: string): Promise<RegisteredApp> {
  appSeq += 1;
  const uri = redirectUri ?? `http://127.0.0.1:9/callback/${appSeq}`;
  const { clientId, clientSecret } = await t.app
    .get(OAuthClientService)
    .create({ name: `Test App ${appSeq}`, redirectUris: [uri], scopes });
  return asApp(t, clientId, clientSecret, uri);
}

/** A registered client as an app configures it: from the server's RFC 8414 metadata. */
export async function asApp(t: TestApp, clientId: string, clientSecret: string, redirectUri: string): Promise<RegisteredApp> {
  const issuer = new URL(t.config.publicBaseUrl);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  return { client: { client_id: clientId }, clientId, clientSecret, auth: oauth.ClientSecretBasic(clientSecret), redirectUri, as };
}

export interface BrowserResponse {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
  setCookies: string[];
}

export class Browser {
  readonly cookies = new Map<string, string>();

  async get(url: string): Promise<BrowserResponse> {
    return this.request('GET', url);
  }

  async post(url: string, form: Record<string, string>): Promise<BrowserResponse> {
    return this.request('POST', url, new URLSearchParams(form).toString());
  }

  private async request(method: string, url: string, body?: string): Promise<BrowserResponse> {
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(url, { method, headers, body, redirect: 'manual' });
    const setCookies = response.headers.getSetCookie();
    for (const cookie of setCookies) {
      const [pair] = cookie.split(';');
      const [name, ...value] = pair.split('=');
      if (/max-age=0/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value.join('='));
    }
    return { status: response.status, headers: response.headers, text: await response.text(), location: response.headers.get('location'), setCookies };
  }
}

const unescapeHtml = (value: string) =>
  value.replace(/&(amp|lt|gt|quot|#39);/g, (_, e) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e as string]!);

/** The hidden inputs of a page's form. */
export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[unescapeHtml(match[1])] = unescapeHtml(match[2]);
  }
  return fields;
}

export interface AuthorizationAttempt {
  url: URL;
  state: string;
  verifier: string;
}

/** A fresh PKCE verifier and state, and the authorize URL an app would send the browser to. */
export async function authorizationUrl(app: RegisteredApp, scope: string, extra: Record<string, string> = {}): Promise<AuthorizationAttempt> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(app.as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  }).toString();
  return { url, state, verifier };
}

/** Sign-in page -> consent page, as the merchant's browser does it. Returns the consent page. */
export async function signIn(browser: Browser, t: TestApp, url: URL, merchant: Pick<SeededMerchant, 'email' | 'password'>) {
  const signInPage = await browser.get(url.toString());
  expect(signInPage.status).toBe(200);
  const signedIn = await browser.post(`${t.config.authUrl}/oauth/authorize/sign-in`, {
    ...hiddenFields(signInPage.text),
    email: merchant.email,
    password: merchant.password,
  });
  expect(signedIn.status).toBe(303);
  const consent = await browser.get(new URL(signedIn.location!, t.config.authUrl).toString());
  expect(consent.status).toBe(200);
  return consent;
}

/** The whole browser leg: sign in, choose the account, decide. Returns the callback URL the app receives. */
export async function authorizeInBrowser(
  t: TestApp,
  attempt: AuthorizationAttempt,
  merchant: Pick<SeededMerchant, 'email' | 'password' | 'accountId'>,
  decision: 'approve' | 'deny' = 'approve',
): Promise<URL> {
  const browser = new Browser();
  const consent = await signIn(browser, t, attempt.url, merchant);
  const decided = await browser.post(`${t.config.authUrl}/oauth/authorize/decision`, {
    ...hiddenFields(consent.text),
    account_id: merchant.accountId,
    decision,
  });
  expect(decided.status).toBe(303);
  return new URL(decided.location!);
}

/** The app's callback handling and code exchange, strictly per oauth4webapi. */
export async function exchange(app: RegisteredApp, callback: URL, attempt: Pick<AuthorizationAttempt, 'state' | 'verifier'>, redirectUri = app.redirectUri) {
  const params = oauth.validateAuthResponse(app.as, app.client, callback, attempt.state);
  const response = await oauth.authorizationCodeGrantRequest(app.as, app.client, app.auth, params, redirectUri, attempt.verifier, insecure);
  return oauth.processAuthorizationCodeResponse(app.as, app.client, response);
}

/** Registers nothing: connects an already registered app to the merchant and returns its tokens. */
export async function connect(t: TestApp, app: RegisteredApp, merchant: SeededMerchant, scope: string) {
  const attempt = await authorizationUrl(app, scope);
  const callback = await authorizeInBrowser(t, attempt, merchant);
  return exchange(app, callback, attempt);
}

export async function refresh(app: RegisteredApp, refreshToken: string) {
  const response = await oauth.refreshTokenGrantRequest(app.as, app.client, app.auth, refreshToken, insecure);
  return oauth.processRefreshTokenResponse(app.as, app.client, response);
}

/** The raw token endpoint, for the cases a strict client refuses to send. */
export async function tokenRequest(t: TestApp, form: Record<string, string>, basic?: { id: string; secret: string }) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`).toString('base64')}`;
  const response = await fetch(`${t.baseUrl}/oauth/token`, { method: 'POST', headers, body: new URLSearchParams(form).toString() });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}
