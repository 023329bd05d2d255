import { createHash } from 'node:crypto';
import type { MemberAccount } from '@app/account';
import { html, joinHtml, trustedHtml, type SafeHtml } from '@app/core';
import type { AuthorizationRequest } from './oauth-authorization.service';
import { SCOPE_DESCRIPTIONS } from './oauth-scope';

/**
 * The server-rendered pages of the authorize flow: plain HTML forms that work without JavaScript,
 * every input labelled, nothing loaded from elsewhere. Written with `html`, which escapes every value
 * written into a page (docs/html-templates.md).
 */
const STYLE = `body{font-family:system-ui,sans-serif;background:#f6f7f9;color:#1f2328;margin:0}
main{max-width:28rem;margin:3rem auto;background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:2rem}
h1{font-size:1.3rem;margin-top:0}label{display:block;margin:1rem 0 .3rem;font-weight:600}
input[type=email],input[type=password],input[type=text]{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem}
fieldset{border:none;padding:0;margin:1rem 0}legend{font-weight:600}fieldset label{font-weight:normal;margin:.4rem 0}
ul{padding-left:1.2rem}li{margin:.3rem 0}.error{color:#b42318;font-weight:600}.note{color:#57606a;font-size:.9rem}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}button{font-size:1rem;padding:.55rem 1.2rem;border-radius:6px;border:1px solid #d0d7de;background:#fff;cursor:pointer}
button.primary{background:#1f6feb;border-color:#1f6feb;color:#fff}`;

const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/**
 * The pages' CSP: nothing but our stylesheet, framing refused (clickjacking on a consent button),
 * and forms may post to us and, after approval, be redirected to the app's registered origin.
 */
export function authorizePageCsp(redirectUri?: string): string {
  const formAction = ["'self'", ...(redirectUri ? [new URL(redirectUri).origin] : [])].join(' ');
  return `default-src 'none'; style-src ${STYLE_HASH}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`;
}

function layout(title: string, content: SafeHtml): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${title}</title><style>${trustedHtml(STYLE)}</style></head>
<body><main>${content}</main></body></html>`.toString();
}

function hiddenInputs(request: AuthorizationRequest, csrfToken: string): SafeHtml {
  const fields = { ...request.params, csrf_token: csrfToken };
  return joinHtml(
    Object.entries(fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`),
    '\n',
  );
}

export function errorPage(title: string, message: string): string {
  return layout(title, html`<h1>${title}</h1><p>${message}</p><p class="note">You can close this page.</p>`);
}

export function signInPage(request: AuthorizationRequest, csrfToken: string, options: { error?: string; email?: string } = {}): string {
  const app = request.client.name;
  return layout(
    `Sign in to connect ${app}`,
    html`<h1>Sign in to connect ${app}</h1>
<p>${app} is asking to connect to your rewards account. Sign in to review what it may do.</p>
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
<form method="post" action="/oauth/authorize/sign-in">
${hiddenInputs(request, csrfToken)}
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${options.email ?? ''}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="actions"><button class="primary" type="submit">Sign in</button></div>
</form>`,
  );
}

/** The second step for a user with two-factor sign-in: the current code of their authenticator app. */
export function twoFactorPage(request: AuthorizationRequest, csrfToken: string, email: string, options: { error?: string } = {}): string {
  const app = request.client.name;
  return layout(
    `Two-factor code to connect ${app}`,
    html`<h1>Enter your two-factor code</h1>
<p>Signed in as ${email}. Enter the 6-digit code your authenticator app shows now, to go on connecting ${app}.</p>
${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
<form method="post" action="/oauth/authorize/two-factor">
${hiddenInputs(request, csrfToken)}
<label for="totp_code">Two-factor code</label>
<input id="totp_code" name="totp_code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required autofocus>
<div class="actions"><button class="primary" type="submit">Verify code</button></div>
</form>
<p class="note">The code is asked for because your account has two-factor sign-in on. If you cannot give it, start again from the app.</p>`,
  );
}

export function consentPage(request: AuthorizationRequest, csrfToken: string, email: string, accounts: MemberAccount[]): string {
  const app = request.client.name;
  const appHost = new URL(request.redirectUri).host;
  const choices = joinHtml(
    accounts.map(
      (account, index) =>
        html`<label><input type="radio" name="account_id" value="${account.id}"${index === 0 ? html` checked` : ''} required> ${account.name}</label>`,
    ),
    '\n',
  );
  const scopes = joinHtml(
    request.scopes.map((scope) => html`<li>${SCOPE_DESCRIPTIONS[scope]}</li>`),
    '\n',
  );
  const noAccount = html`<p class="error">You are not an owner or admin of any account, so you cannot connect apps. You can decline.</p>`;
  return layout(
    `Connect ${app}`,
    html`<h1>Connect ${app}</h1>
<p class="note">Signed in as ${email}. After you decide, you are sent back to ${appHost}.</p>
<form method="post" action="/oauth/authorize/decision">
${hiddenInputs(request, csrfToken)}
${accounts.length ? html`<fieldset><legend>Account to connect</legend>\n${choices}\n</fieldset>` : noAccount}
<p><strong>${app} will be able to:</strong></p>
<ul>
${scopes}
</ul>
<p class="note">It can never add money to your wallet, change your branding, or manage API keys and team members.
You can disconnect it at any time under connected apps.</p>
<div class="actions">
${accounts.length ? html`<button class="primary" type="submit" name="decision" value="approve">Approve</button>` : ''}
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</div>
</form>`,
  );
}
