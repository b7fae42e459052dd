/**
 * For the specs whose page breaks the protocol on purpose: the matcher must
 * fail there, and its message must say what the page got wrong. Both are
 * asserted in every run (no `test.fail`, so a crash, a timeout or a missing
 * build fails the test instead of counting as the expected failure).
 *
 * With OUI_FIXTURE_SHOW_FAILURES=1, once its content has been asserted, the
 * matcher's own error is thrown again, so the test fails for real and the
 * report shows the message as an app's developer would see it (what
 * test/e2e/playwright-fixture.test.ts reads).
 */
import { expect } from 'oui-devtools/playwright';

const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

export async function expectMatcherFailure(verdict: () => Promise<unknown>, lines: Array<string | RegExp>): Promise<void> {
  let failure: unknown = null;
  try {
    await verdict();
  } catch (e) {
    failure = e;
  }
  expect(failure, 'the matcher fails on this page').toBeInstanceOf(Error);
  const message = stripAnsi((failure as Error).message);
  for (const line of lines) {
    if (typeof line === 'string') expect(message, 'the matcher names what the page got wrong').toContain(line);
    else expect(message, 'the matcher names what the page got wrong').toMatch(line);
  }
  if (process.env.OUI_FIXTURE_SHOW_FAILURES) throw failure;
}
