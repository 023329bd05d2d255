import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * Every table has one owning lib (docs/architecture.md, Table ownership): only the owner writes it,
 * in SQL or through TypeORM, and only the owner imports its entity. Other libs go through the
 * owner's services. The table list is the committed schema dump, so a new table without an owner
 * fails here. The migration baseline creates everything and is exempt.
 */
const OWNERS: Record<string, string> = {
  accounts: 'account',
  api_keys: 'account',
  users: 'account',
  memberships: 'account',
  invitations: 'account',
  password_resets: 'account',
  sessions: 'auth',
  audit_log: 'audit',
  catalog_brands: 'catalog',
  catalog_items: 'catalog',
  catalog_rules: 'catalog',
  catalog_state: 'catalog',
  // The outbox, the idempotency keys, the list counts (kept by triggers) and the migrations' ledger.
  events: 'core',
  idempotency_keys: 'core',
  list_counts: 'core',
  list_count_changes: 'core',
  schema_migrations: 'core',
  fx_rates: 'fx',
  fx_quotes: 'fx',
  fx_conversions: 'fx',
  oauth_authorization_codes: 'oauth',
  oauth_clients: 'oauth',
  oauth_connections: 'oauth',
  oauth_grants: 'oauth',
  oauth_tokens: 'oauth',
  rewards: 'rewards',
  reward_cards: 'rewards',
  reward_events: 'rewards',
  redemption_links: 'rewards',
  mail_jobs: 'rewards',
  reports: 'reports',
  report_chunks: 'reports',
  topups: 'topups',
  wallets: 'wallet',
  wallet_transactions: 'wallet',
  low_balance_alerts: 'wallet',
  webhook_endpoints: 'webhooks',
  webhook_deliveries: 'webhooks',
  webhook_replays: 'webhooks',
  webhook_delivery_attempts: 'webhooks',
};

const ROOT = resolve(__dirname, '../../../..');
const LIBS = join(ROOT, 'libs');
const EXEMPT = [join(LIBS, 'core/src/database/migrations') + sep];

interface Source {
  path: string;
  lib: string;
  text: string;
}

function schemaTables(): string[] {
  const dump = readFileSync(join(ROOT, 'test/foundation/schema.sql'), 'utf8');
  return [...dump.matchAll(/^CREATE TABLE public\.(\w+) \(/gm)].map((match) => match[1]).sort();
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return walk(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

function libOf(path: string): string | null {
  const rel = relative(LIBS, path);
  return rel.startsWith('..') ? null : rel.split(sep)[0];
}

/** Comments may name tables ("no UPDATE of the audit log"); only code counts. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, '')).replace(/^\s*\/\/.*$/gm, '');
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

function sources(): Source[] {
  return walk(LIBS)
    .filter((path) => !EXEMPT.some((dir) => path.startsWith(dir)))
    .map((path) => ({ path, lib: libOf(path)!, text: withoutComments(readFileSync(path, 'utf8')) }));
}

/** Entity class name → its table and the file declaring it. */
function entities(all: Source[]): Map<string, { table: string; path: string; lib: string }> {
  const found = new Map<string, { table: string; path: string; lib: string }>();
  for (const source of all) {
    for (const match of source.text.matchAll(/@Entity\(\s*['"](\w+)['"][^)]*\)\s*export class (\w+)/g)) {
      found.set(match[2], { table: match[1], path: source.path, lib: source.lib });
    }
  }
  return found;
}

const SQL_WRITE = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)\s+(?:ONLY\s+)?(?:public\.)?([a-z_]+)\b/g;
const STATEMENT_INSERT = /\binsertRows\(\s*[^,]+,\s*['"`]([a-z_]+)['"`]/g;
/** A RowLease writes its table (take, renew, release): it is declared by the table's owner. */
const ROW_LEASE = /\bnew RowLease\(\s*\{[^}]*?\btable:\s*['"`]([a-z_]+)['"`]/g;
const TYPEORM_WRITE = /\.(?:insert|update|delete|save|upsert|remove|softDelete|restore|increment|decrement|into)\(\s*(\w+Entity)\b/g;

/** Each write of a table by a lib that does not own it, as `file:line table (owner)`. */
export function foreignWrites(all: Source[], owners: Record<string, string>): string[] {
  const classes = entities(all);
  const problems: string[] = [];
  for (const source of all) {
    const report = (index: number, table: string, how: string) => {
      const owner = owners[table];
      if (owner !== undefined && owner !== source.lib) {
        problems.push(`${relative(ROOT, source.path)}:${lineOf(source.text, index)} ${how} ${table} (owned by ${owner})`);
      }
    };
    for (const match of source.text.matchAll(SQL_WRITE)) report(match.index!, match[1], 'writes');
    for (const match of source.text.matchAll(STATEMENT_INSERT)) report(match.index!, match[1], 'inserts into');
    for (const match of source.text.matchAll(ROW_LEASE)) report(match.index!, match[1], 'leases rows of');
    for (const match of source.text.matchAll(TYPEORM_WRITE)) {
      const entity = classes.get(match[1]);
      if (entity) report(match.index!, entity.table, `writes (${match[1]})`);
    }
  }
  return problems;
}

/** Each import of another lib's entity: by an `entities/` path, or by an entity's name from its lib. */
export function foreignEntityImports(all: Source[]): string[] {
  const classes = entities(all);
  const problems: string[] = [];
  for (const source of all) {
    for (const match of source.text.matchAll(/\b(?:import|export)\s+(?:type\s+)?([\s\S]*?)\s+from\s+['"]([^'"]+)['"]/g)) {
      const [, names, module] = match;
      let target: string | null = null;
      let rest = '';
      const alias = /^@app\/([^/]+)(\/.*)?$/.exec(module);
      if (alias) [target, rest] = [alias[1], alias[2] ?? ''];
      else if (module.startsWith('.')) {
        const resolved = resolve(dirname(source.path), module);
        target = libOf(resolved);
        rest = relative(join(LIBS, target ?? ''), resolved);
      }
      if (!target || target === source.lib) continue;
      const named = [...names.matchAll(/\b(\w+Entity)\b/g)].map((name) => name[1]).filter((name) => classes.get(name)?.lib === target);
      if (/(^|\/)entities(\/|$)/.test(rest) || named.length) {
        problems.push(`${relative(ROOT, source.path)}:${lineOf(source.text, match.index!)} imports ${named.join(', ') || module} of ${target}`);
      }
    }
  }
  return problems;
}

describe('table ownership', () => {
  const all = sources();

  it('names an owning lib for every table of the schema, and only for those', () => {
    const tables = schemaTables();
    expect(tables.length).toBeGreaterThan(20);
    expect(tables.filter((table) => !(table in OWNERS))).toEqual([]);
    expect(Object.keys(OWNERS).filter((table) => !tables.includes(table))).toEqual([]);
    const libs = readdirSync(LIBS);
    expect(Object.values(OWNERS).filter((lib) => !libs.includes(lib))).toEqual([]);
  });

  it('declares each entity in the lib that owns its table', () => {
    const misplaced = [...entities(all)]
      .filter(([, entity]) => OWNERS[entity.table] !== entity.lib)
      .map(([name, entity]) => `${name} (${entity.table}) is in ${entity.lib}, owned by ${OWNERS[entity.table]}`);
    expect(misplaced).toEqual([]);
  });

  it('has no lib writing a table it does not own', () => {
    expect(foreignWrites(all, OWNERS)).toEqual([]);
  });

  it('has no lib importing another lib’s entities', () => {
    expect(foreignEntityImports(all)).toEqual([]);
  });

  it('sees writes and imports wherever they are written', () => {
    // The scanner itself: a write or an import in another lib is found, however it is spelled.
    const fake = (lib: string, text: string): Source => ({ path: join(LIBS, lib, 'src/x.ts'), lib, text });
    const entity = fake('account', `@Entity('users')\nexport class UserEntity {}`);
    const writers = [
      fake('dashboard', 'q(`UPDATE users SET a = 1`)'),
      fake('dashboard', "q(`INSERT INTO public.memberships (a) VALUES (1) ON CONFLICT DO NOTHING`)"),
      fake('dashboard', 'q(`DELETE FROM sessions WHERE id = $1`)'),
      fake('dashboard', 'q(`TRUNCATE audit_log`)'),
      fake('dashboard', "statement.insertRows('x', 'wallets', rows)"),
      fake('dashboard', 'await manager.update(UserEntity, { id }, {})'),
      fake('dashboard', "const LEASE = new RowLease({\n  table: 'mail_jobs',\n  alias: 'm',\n})"),
      fake('auth', 'q(`UPDATE sessions SET a = 1`)'),
    ];
    expect(foreignWrites([entity, ...writers], OWNERS)).toHaveLength(7);
    const importers = [
      fake('dashboard', "import { UserEntity } from '@app/account';"),
      fake('dashboard', "import { X } from '@app/account/entities/user.entity';"),
      fake('dashboard', "import type { X } from '../../account/src/entities/user.entity';"),
      fake('dashboard', "import { UserDirectory } from '@app/account';"),
    ];
    expect(foreignEntityImports([entity, ...importers])).toHaveLength(3);
  });
});
