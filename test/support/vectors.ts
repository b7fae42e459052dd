/**
 * The published test vectors. The project's source of truth is the shared
 * folder beside the repository (../shared/vectors); a clean CI clone may not
 * have it next door, so test/vectors holds a copy, and a test checks that the
 * copy still equals the shared folder wherever that folder exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const COPY_DIR = fileURLToPath(new URL('../vectors/', import.meta.url));

export function sharedVectorsDir(): string | null {
  for (const dir of [process.env.OUI_SHARED_VECTORS, fileURLToPath(new URL('../../../shared/vectors/', import.meta.url)), '/work/shared/vectors/']) {
    if (dir && existsSync(`${dir}/args-hash-vectors.json`)) return dir.endsWith('/') ? dir : `${dir}/`;
  }
  return null;
}

export function loadVectors<T>(name: string): T[] {
  const dir = sharedVectorsDir() ?? COPY_DIR;
  return JSON.parse(readFileSync(`${dir}${name}`, 'utf8')) as T[];
}
