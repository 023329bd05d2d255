import { randomUUID } from 'node:crypto';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Writes `data` as `dir/name` so that whoever reads the folder (`mail:list`, a test waiting for a message)
 * never finds it half-written: the bytes go under a hidden name of their own (a dot, no extension, not the
 * final name), then the file is renamed, which within one folder is atomic.
 */
export async function writeWholeFile(dir: string, name: string, data: string | Buffer): Promise<void> {
  const partial = join(dir, `.writing-${randomUUID()}`);
  await writeFile(partial, data);
  await rename(partial, join(dir, name));
}
