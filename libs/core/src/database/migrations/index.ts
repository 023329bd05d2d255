import { AccountsAndCredentials1763750000000 } from './1763750000000-accounts-and-credentials';

/** Every migration, in order. A new migration is added here as well as in its own file. */
export const MIGRATIONS = [AccountsAndCredentials1763750000000];
