import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { parse, stringify } from 'yaml';
import { loadConfig } from '@app/core';
import { ApiModule } from './api.module';
import { buildOpenApiDocument } from './openapi-document';

/**
 * `--write` regenerates openapi.yaml from the built app; `--check` fails when they differ.
 * Preview mode builds the route table without instantiating providers, so no database is needed.
 */
async function main(): Promise<void> {
  const mode = process.argv[2];
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.register(loadConfig({})), {
    preview: true,
    logger: false,
  });
  const document = JSON.parse(JSON.stringify(buildOpenApiDocument(app)));
  const file = join(process.cwd(), 'openapi.yaml');
  if (mode === '--write') {
    writeFileSync(file, stringify(document, { lineWidth: 0 }));
    process.stdout.write(`wrote ${file}\n`);
  } else if (mode === '--check') {
    if (!isDeepStrictEqual(parse(readFileSync(file, 'utf8')), document)) {
      process.stderr.write('openapi.yaml differs from the document the app generates: run `npm run openapi`\n');
      process.exit(1);
    }
    process.stdout.write('openapi.yaml matches the app\n');
  } else {
    process.stderr.write('usage: openapi.js --write | --check\n');
    process.exit(2);
  }
}

void main();
