import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../support/processes';
import { SeededMerchant, seedMerchant, startTestApp, TestApp } from '../support/test-app';
// Plain JavaScript, preloaded into spawned Node processes (docs/operations.md, "Tests are hermetic").
const outboundGuard = require('../support/outbound-guard') as { childEnv(owner: string | undefined): Record<string, string> };

/**
 * The typed client as people get it (clients/typescript/README.md): `npm pack` builds and packs it, the
 * tarball installs into a scratch project with no registry (an empty npm cache, --offline), and that
 * project calls the service with it from an ES module and from CommonJS, and type-checks against it
 * under TypeScript's nodenext resolution both ways.
 */
const CLIENT = join(ROOT, 'clients', 'typescript');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const manifest = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8'));

describe('the packed client (clients/typescript)', () => {
  let t: TestApp;
  let merchant: SeededMerchant;
  let work: string;
  let scratch: string;
  let packed: { filename: string; files: { path: string }[]; bundled: string[] };

  /** npm (a Node program) with the outbound-connection guard preloaded, and a cache of its own: nothing comes from a registry. */
  function npm(args: string[], cwd: string): string {
    return execFileSync('npm', [...args, '--cache', join(work, 'npm-cache'), '--offline', '--no-audit', '--no-fund', '--no-update-notifier', '--loglevel', 'error'], {
      cwd,
      env: { PATH: process.env.PATH!, HOME: work, ...outboundGuard.childEnv(process.env.OUTBOUND_GUARD_OWNER) },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 170_000,
    }).toString();
  }

  /** Runs a script of the scratch project against the service (in this process: never block it); it prints one JSON line. */
  async function run(file: string): Promise<any> {
    const { stdout } = await promisify(execFile)(process.execPath, [file], {
      cwd: scratch,
      env: { PATH: process.env.PATH!, REWARDS_URL: t.baseUrl, REWARDS_KEY: merchant.key, ...outboundGuard.childEnv(process.env.OUTBOUND_GUARD_OWNER) },
      timeout: 30_000,
    });
    return JSON.parse(stdout);
  }

  beforeAll(async () => {
    t = await startTestApp();
    merchant = await seedMerchant(t);
    work = mkdtempSync(join(tmpdir(), 'client-package-'));
    scratch = join(work, 'scratch');
    // `npm pack` runs the package's prepack: the build (scripts/build-client.js).
    [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', work], CLIENT));
    execFileSync('mkdir', [scratch]);
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', version: '1.0.0', private: true, type: 'module' }));
    npm(['install', join(work, packed.filename)], scratch);
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('is a package with a name, a version, an exports map for import and require, its README and CHANGELOG, and openapi-fetch bundled', () => {
    expect(packed.filename).toBe(`${manifest.name.replace('@', '').replace('/', '-')}-${manifest.version}.tgz`);
    const files = packed.files.map((f) => f.path).sort();
    expect(files).toEqual(
      expect.arrayContaining([
        'README.md',
        'CHANGELOG.md',
        'package.json',
        'dist/esm/index.js',
        'dist/esm/index.d.ts',
        'dist/esm/schema.d.ts',
        'dist/cjs/index.js',
        'dist/cjs/index.d.ts',
        'dist/cjs/schema.d.ts',
        'node_modules/openapi-fetch/package.json',
      ]),
    );
    expect(files.filter((f) => !f.startsWith('node_modules/')).every((f) => /^(README\.md|CHANGELOG\.md|package\.json|dist\/)/.test(f))).toBe(true);
    expect(packed.bundled).toEqual(expect.arrayContaining(['openapi-fetch']));
    expect(readFileSync(join(CLIENT, 'CHANGELOG.md'), 'utf8')).toContain(`## ${manifest.version} `);
  });

  it('installed from the tarball, calls the service from an ES module', async () => {
    writeFileSync(
      join(scratch, 'esm.mjs'),
      `import { createRewardsClient } from '${manifest.name}';
const rewards = createRewardsClient({ baseUrl: process.env.REWARDS_URL, token: process.env.REWARDS_KEY });
const topup = await rewards.POST('/v1/topups', { body: { amountCents: 5000 } });
const account = await rewards.GET('/v1/account');
const missing = await rewards.GET('/v1/rewards/{id}', { params: { path: { id: 'rw_missing' } } });
console.log(JSON.stringify({ topup: topup.response.status, accountId: account.data.account.id, missing: missing.error }));
`,
    );
    const result = await run('esm.mjs');
    expect(result).toEqual({ topup: 201, accountId: merchant.accountId, missing: { error: 'not_found', message: 'Reward not found.' } });
  });

  it('installed from the tarball, calls the service from CommonJS', async () => {
    writeFileSync(
      join(scratch, 'cjs.cjs'),
      `const { createRewardsClient } = require('${manifest.name}');
const rewards = createRewardsClient({ baseUrl: process.env.REWARDS_URL, token: process.env.REWARDS_KEY });
rewards.GET('/v1/wallet').then(({ data, response }) => console.log(JSON.stringify({ status: response.status, currency: data.wallet.currency })));
`,
    );
    expect(await run('cjs.cjs')).toEqual({ status: 200, currency: 'USD' });
  });

  it.each([
    ['an ES module', 'consumer.mts'],
    ['CommonJS', 'consumer.cts'],
  ])('type-checks under nodenext as %s, the client README example included, and refuses a call the contract does not have', (_, file) => {
    const readme = readFileSync(join(CLIENT, 'README.md'), 'utf8');
    const example = /## Use\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const body = file.endsWith('.mts')
      ? example!.replace(/\/\/ or: .*$/m, '')
      : // CommonJS has no top-level await: the example runs inside a function.
        `${example!.split('\n')[0]}\nexport async function main(): Promise<void> {\n${example!.split('\n').slice(1).join('\n')}}\n`;
    writeFileSync(
      join(scratch, file),
      `${body}
export async function refused(): Promise<void> {
  const client = createRewardsClient({ baseUrl: 'http://localhost:3000', token: 'sk_x' });
  // @ts-expect-error: no such path in the contract
  await client.GET('/v1/no-such-path');
  // @ts-expect-error: a FIXED reward's valueCents is a number
  await client.POST('/v1/rewards', { body: { type: 'FIXED', utid: 'U356303', valueCents: '2500', recipient: { email: 'a@example.com', firstName: 'A' } } });
}
`,
    );
    const tsconfig = join(scratch, `tsconfig.${file}.json`);
    writeFileSync(
      tsconfig,
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          lib: ['es2023', 'dom'],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
        },
        files: [file],
      }),
    );
    let output = '';
    try {
      execFileSync(process.execPath, [TSC, '-p', tsconfig], { cwd: scratch, stdio: 'pipe' });
    } catch (error) {
      output = (error as { stdout?: Buffer }).stdout?.toString() ?? String(error);
    }
    expect(output).toBe('');
  });
});
