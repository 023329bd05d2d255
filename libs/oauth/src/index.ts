export * from './oauth.module';
export * from './oauth-client.service';
export * from './connected-apps.service';
export { ACCESS_TOKEN_TTL_SECONDS, REFRESH_TOKEN_TTL_SECONDS } from './oauth-token.service';
export { AUTHORIZATION_CODE_TTL_SECONDS } from './oauth-authorization.service';
export { SIGN_IN_ATTEMPTS_PER_ADDRESS, SIGN_IN_FAILURES_PER_EMAIL } from '@app/auth';
export { oauthFormBody, OAUTH_FORM_PATHS } from './oauth-form-body.middleware';
