/**
 * Texts the project takes from the shared folder beside the repository
 * (../shared): a clean CI clone may not have it next door, so the tests hold
 * a copy, and check it against the shared folder wherever that exists.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * `../shared/<sub>/` beside the repository (or `env`'s directory), when it
 * holds `probe`; null where it does not exist.
 */
export function sharedDir(sub: string, probe: (dir: string) => boolean, env?: string): string | null {
  for (const dir of [env, fileURLToPath(new URL(`../../../shared/${sub}/`, import.meta.url))]) {
    if (dir && existsSync(dir) && probe(dir.endsWith('/') ? dir : `${dir}/`)) return dir.endsWith('/') ? dir : `${dir}/`;
  }
  return null;
}
