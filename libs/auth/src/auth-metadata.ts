/** Route metadata keys: the scope a route requires, or that it is deliberately public. */
export const REQUIRED_SCOPE = 'auth:required-scope';
export const PUBLIC_ROUTE = 'auth:public';
