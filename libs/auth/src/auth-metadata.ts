/** Route metadata keys: the scope a route requires, or that it is deliberately public. */
export const REQUIRED_SCOPE = 'auth:required-scope';
export const PUBLIC_ROUTE = 'auth:public';
/** A dashboard-only route: only a dashboard session may call it, never an API key or OAuth token. */
export const DASHBOARD_ONLY = 'auth:dashboard-only';
/** A dashboard route that needs a signed-in session but no account (the session itself, own security). */
export const SIGNED_IN_ROUTE = 'auth:signed-in';
