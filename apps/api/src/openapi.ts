import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse, stringify } from 'yaml';
import { loadConfig } from '@app/core';
import { ApiModule } from './api.module';
import { buildDashboardOpenApiDocument, buildOpenApiDocument } from './openapi-document';

/**
 * `--write` regenerates openapi.yaml and openapi.dashboard.yaml from the built app; `--check` fails
 * when either differs.
 * Preview mode builds the route table without instantiating providers, so no database is needed.
 */
async function main(): Promise<void> {
  const mode = process.argv[2];
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.register(loadConfig({})), {
    preview: true,
    logger: false,
  });
  const documents = [
    { file: 'openapi.yaml', document: buildOpenApiDocument(app) },
    { file: 'openapi.dashboard.yaml', document: buildDashboardOpenApiDocument(app) },
  ];
  if (mode !== '--write' && mode !== '--check') {
    process.stderr.write('usage: openapi.js --write | --check\n');
    process.exit(2);
  }
  for (const { file: name, document: built } of documents) {
    const document = JSON.parse(JSON.stringify(built));
    const file = join(process.cwd(), name);
    if (mode === '--write') {
      writeFileSync(file, stringify(document, { lineWidth: 0 }));
      process.stdout.write(`wrote ${file}\n`);
    } else if (!isDeepStrictEqual(parse(readFileSync(file, 'utf8')), document)) {
      process.stderr.write(`${name} differs from the document the app generates: run \`npm run openapi\`\n`);
      process.exit(1);
    } else {
      process.stdout.write(`${name} matches the app\n`);
    }
  }
}

void main();
