import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from './app-config';

/**
 * Reads `.env` in the working directory, or the file ENV_FILE names, into process.env before the
 * configuration is read (docs/operations.md, Environment variables), with Node's own parser
 * (`process.loadEnvFile`, Node 20.12+): `NAME=value` lines, `#` comments, quotes. A variable already set in
 * the environment wins over the file. No file is fine; an ENV_FILE naming a missing file is a
 * configuration error. Returns the absolute path of the file read, or null.
 */
export function loadEnvFile(env: NodeJS.ProcessEnv = process.env): string | null {
  const named = env.ENV_FILE?.trim();
  const file = resolve(named || '.env');
  if (!existsSync(file)) {
    if (named) throw new ConfigError('ENV_FILE', `names ${file}, which does not exist`);
    return null;
  }
  process.loadEnvFile(file);
  return file;
}
