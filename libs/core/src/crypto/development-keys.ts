import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { AppConfig } from '../config/app-config';
import { newKeyRingEntry, parseKeyRing } from './key-ring';

/** Where a development machine keeps its key ring when ENCRYPTION_KEYS is unset (./var is git-ignored). */
export const DEVELOPMENT_KEY_FILE = join('var', 'encryption-keys');

/**
 * The development key ring: read from `var/encryption-keys` under `root`, created there (mode 0600)
 * on first use. Creation is atomic (a private temporary file linked into place), so processes
 * starting together (API, worker, CLI) agree on one key. `onCreate` hears of a new file.
 */
export function developmentKeyRing(root: string = process.cwd(), onCreate?: (path: string) => void): string {
  const path = join(root, DEVELOPMENT_KEY_FILE);
  const existing = read(path);
  if (existing !== null) return existing;
  mkdirSync(join(root, 'var'), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temporary, `${newKeyRingEntry(`dev${new Date().toISOString().slice(0, 10).replace(/-/g, '')}`)}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(temporary, 0o600); // whatever the umask
  try {
    linkSync(temporary, path);
    onCreate?.(path);
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error; // another process made it first: use theirs
  } finally {
    unlinkSync(temporary);
  }
  return read(path)!;
}

function read(path: string): string | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return null;
    throw error;
  }
  parseKeyRing(text); // a damaged file stops the start rather than sealing under something else
  return text;
}

/**
 * The configuration with its key ring settled: ENCRYPTION_KEYS when set (loadConfig refuses to go on
 * without it in production), else the development key file, whose creation is reported in one line.
 */
export function withEncryptionKeys(config: AppConfig, log: (line: string) => void): AppConfig {
  if (config.encryptionKeys) return config;
  const encryptionKeys = developmentKeyRing(process.cwd(), (path) =>
    log(
      `ENCRYPTION_KEYS is unset: created a development encryption key in ${relative(process.cwd(), path)} (mode 0600); set ENCRYPTION_KEYS in production (docs/secrets.md).`,
    ),
  );
  return { ...config, encryptionKeys };
}
