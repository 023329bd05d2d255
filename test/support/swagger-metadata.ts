import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The @nestjs/swagger plugin's metadata for a test run (docs/testing.md, "How the tests compile").
 *
 * `nest build` runs the plugin as it compiles (nest-cli.json): it adds to each DTO and controller what
 * their TypeScript types say (property types, `| null`, comments), which the OpenAPI document and the
 * validation of nullable fields read. The tests compile each file on its own, without a type checker
 * (ts-jest with isolatedModules: a type-checked compile in every Jest worker cost minutes of CI), so the
 * plugin's read-only mode writes that metadata once per run, here, into one module, and every test file
 * loads it before it builds an app (swagger-metadata-setup.ts). The contract test compares the document
 * so made with openapi.yaml, as `npm run openapi:check` does for the build.
 */
const ROOT = join(__dirname, '..', '..');
export const SWAGGER_METADATA_DIR = join(ROOT, 'test', '.generated');
export const SWAGGER_METADATA_FILE = join(SWAGGER_METADATA_DIR, 'swagger-metadata.ts');

/** What the metadata is made from: the server's sources (not the dashboard's) and the plugin's options. */
function inputsHash(): string {
  const hash = createHash('sha256').update(readFileSync(join(ROOT, 'nest-cli.json')));
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'node_modules' && name !== 'dist' && relative(ROOT, path) !== join('apps', 'dashboard')) walk(path);
      } else if (name.endsWith('.ts') && !name.endsWith('.spec.ts')) {
        hash.update(relative(ROOT, path)).update(readFileSync(path));
      }
    }
  };
  walk(join(ROOT, 'libs'));
  walk(join(ROOT, 'apps'));
  return hash.digest('hex');
}

/** Writes the metadata module unless the one there was made from the same sources. */
export function generateSwaggerMetadata(): void {
  const stamp = `// inputs ${inputsHash()}\n`;
  if (existsSync(SWAGGER_METADATA_FILE) && readFileSync(SWAGGER_METADATA_FILE, 'utf8').startsWith(stamp)) return;
  // Required here, not imported: only the global setup pays for the CLI and the type checker.
  const { PluginMetadataGenerator } = require('@nestjs/cli/lib/compiler/plugins/plugin-metadata-generator');
  const { ReadonlyVisitor } = require('@nestjs/swagger/plugin');
  const nestCli = require(join(ROOT, 'nest-cli.json'));
  mkdirSync(SWAGGER_METADATA_DIR, { recursive: true });
  const options = nestCli.compilerOptions.plugins.find((p: { name: string }) => p.name === '@nestjs/swagger').options;
  new PluginMetadataGenerator().generate({
    visitors: [new ReadonlyVisitor({ ...options, pathToSource: SWAGGER_METADATA_DIR })],
    outputDir: SWAGGER_METADATA_DIR,
    filename: 'swagger-metadata.ts',
    // Relative to the working directory, as the CLI resolves it.
    tsconfigPath: relative(process.cwd(), join(ROOT, 'tsconfig.json')),
    printDiagnostics: false,
  });
  writeFileSync(SWAGGER_METADATA_FILE, stamp + readFileSync(SWAGGER_METADATA_FILE, 'utf8'));
}
