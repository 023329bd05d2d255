import { AccountsAndCredentials1763750000000 } from './1763750000000-accounts-and-credentials';
import { Catalog1763760000000 } from './1763760000000-catalog';

/** Every migration, in order. A new migration is added here as well as in its own file. */
export const MIGRATIONS = [AccountsAndCredentials1763750000000, Catalog1763760000000];
