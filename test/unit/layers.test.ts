/**
 * The protocol core and the session model run in Node, the page, the panel
 * and a CLI alike: no extension API and no DOM global in them. (Which module
 * may import which is checked by dependency-cruiser: npm run lint:deps.)
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** A use of a browser or extension global: `chrome.x`, `browser.x`, `document.x`, `window.x`, `localStorage`, `location.x`. */
const GLOBAL_USE = /(?<![.\w])(chrome|browser|document|window|localStorage|sessionStorage|location)\s*[.[]/;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f))
    .map((f) => join(dir, f));
}

/** The code of a file with comments and string literals blanked, so prose and messages do not count. */
function code(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/\/\/.*$/gm, ' ')
    .replace(/`(?:\\.|[^`\\])*`|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g, "''");
}

describe('layers', () => {
  for (const dir of ['src/protocol', 'src/session']) {
    it(`${dir} uses no extension API and no DOM global`, () => {
      const files = sources(dir);
      assert.ok(files.length > 5, `found ${files.length} files`);
      const uses = files.flatMap((f) =>
        code(readFileSync(join(ROOT, f), 'utf8'))
          .split('\n')
          .flatMap((line, i) => (GLOBAL_USE.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
      );
      assert.deepEqual(uses, []);
    });
  }

  it('the check sees a use when there is one', () => {
    assert.ok(GLOBAL_USE.test(code('const tab = chrome.tabs.query({});')));
    assert.ok(GLOBAL_USE.test(code('if (window["x"]) {}')));
    assert.ok(!GLOBAL_USE.test(code('// window.foo in a comment')));
    assert.ok(!GLOBAL_USE.test(code("const s = 'document.title';")));
    assert.ok(!GLOBAL_USE.test(code('meta.window.add(t);')));
  });
});
