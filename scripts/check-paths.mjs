#!/usr/bin/env node
// Rejects absolute paths of someone's machine in the repository's tracked text files: paths from the root
// into work, root, home/<user> or Users/<user>, and a Windows drive's Users folder (MACHINE_PATH below).
// They leak where a file was written and break for everyone else. A path inside a URL on some host is not
// one; a file:// URL's path is.
// Usage: node scripts/check-paths.mjs [repository folder]; exit 1 naming each file:line.
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Where an absolute path may start: the start of a line, after a quote, a space, a bracket, `=`, `,`, `;` or `:`, or after `file://`. */
const START = String.raw`(?:^|(?<=[\s'"\x60(\[{=,;:])|(?<=file:\/\/))`;
const POSIX = String.raw`\/(?:work|root|home\/[\w.-]+|Users\/[\w.-]+)\/`;
const WINDOWS = String.raw`[A-Za-z]:(?:\\{1,2}|\/)Users(?:\\{1,2}|\/)`;
export const MACHINE_PATH = new RegExp(`${START}(?:${POSIX})|(?<![\\w])${WINDOWS}`, 'g');

/** Files larger than this are data, not text a person wrote (and are read no further). */
const MAX_BYTES = 8 << 20;

/** Every machine path in the tracked text files under `root`: `file:line: match`. */
export function findMachinePaths(root) {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 }).split('\0').filter(Boolean);
  const found = [];
  for (const file of files) {
    const path = join(root, file);
    let text;
    try {
      if (statSync(path).size > MAX_BYTES) continue;
      text = readFileSync(path, 'utf8');
    } catch {
      continue; // deleted in the work tree, or not a file
    }
    if (text.includes('\0')) continue; // binary
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      for (const m of lines[i].matchAll(MACHINE_PATH)) found.push(`${file}:${i + 1}: ${m[0]}`);
    }
  }
  return found;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('check-paths.mjs')) {
  const root = resolve(process.argv[2] ?? '.');
  const found = findMachinePaths(root);
  if (found.length) {
    for (const f of found) console.error(f);
    console.error(`check-paths: ${found.length} absolute machine path${found.length === 1 ? '' : 's'} in tracked files; use paths relative to the repository`);
    process.exit(1);
  }
  console.log('check-paths: no absolute machine paths in tracked files');
}
