import { randomUUID } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Writes `data` as `dir/name` so that whoever reads the folder (`mail:list`, a test waiting for a message)
 * never finds it half-written: the bytes go under a hidden name of their own (a dot, no extension, not the
 * final name), then the file is renamed, which within one folder is atomic. A reader skips names that
 * begin with a dot.
 */
export async function writeWholeFile(dir: string, name: string, data: string | Buffer): Promise<void> {
  const partial = join(dir, `.writing-${randomUUID()}`);
  try {
    await writeFile(partial, data);
    await rename(partial, join(dir, name));
  } catch (error) {
    // A write that failed part-way (a full disk) leaves nothing behind; the caller's retry writes anew.
    await rm(partial, { force: true }).catch(() => undefined);
    throw error;
  }
}
