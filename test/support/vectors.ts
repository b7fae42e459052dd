/**
 * The published test vectors. The project's source of truth is the shared
 * folder beside the repository (../shared/vectors); a clean CI clone may not
 * have it next door, so test/vectors holds a copy, and a test checks that the
 * copy still equals the shared folder wherever that folder exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sharedDir } from './shared-copy.ts';

export const COPY_DIR = fileURLToPath(new URL('../vectors/', import.meta.url));

export function sharedVectorsDir(): string | null {
  return sharedDir('vectors', (dir) => existsSync(`${dir}args-hash-vectors.json`), process.env.OUI_SHARED_VECTORS);
}

export function loadVectors<T>(name: string): T[] {
  const dir = sharedVectorsDir() ?? COPY_DIR;
  return JSON.parse(readFileSync(`${dir}${name}`, 'utf8')) as T[];
}
