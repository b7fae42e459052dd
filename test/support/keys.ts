/**
 * Driving the panel by keyboard alone, for tests: every key pressed is
 * counted, and after each one the panel is let render (two animation
 * frames, a condition, not a sleep) and focus is checked to be on an
 * element, never fallen to the document body.
 */
import assert from 'node:assert/strict';
import type { Frame, Page } from 'playwright-core';

type Surface = Page | Frame;

/** Resolves once the page has rendered what the last input changed: two animation frames (preact renders before the next frame). */
export async function settled(page: Surface): Promise<void> {
  await page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));
}

/** What has focus, said for a failure message: its role or tag, and its label or text. */
export async function focusedElement(page: Surface): Promise<string | null> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body || el === document.documentElement) return null;
    const name = el.getAttribute('aria-label') ?? (el.textContent ?? '').trim().slice(0, 40);
    return `${el.getAttribute('role') ?? el.tagName.toLowerCase()} "${name}"`;
  });
}

/** Fails unless an element of the panel holds focus (`document.activeElement` is not the body). */
export async function assertFocusKept(page: Surface, after: string): Promise<string> {
  const where = await focusedElement(page);
  assert.ok(where !== null, `focus fell to the document body after ${after}`);
  return where;
}

/** Keys pressed into one page, counted: a chord (Control+f) counts as one key, typed text one key a character. */
export class KeyCounter {
  count = 0;
  readonly log: string[] = [];
  constructor(private readonly page: Page) {}

  /** Presses `key` `times` times; after each, the panel renders and must keep focus on an element. */
  async press(key: string, times = 1): Promise<void> {
    for (let i = 0; i < times; i++) {
      await this.page.keyboard.press(key);
      this.count++;
      this.log.push(key);
      await settled(this.page);
      await assertFocusKept(this.page, `${key} (key ${this.count}: ${this.log.join(' ')})`);
    }
  }

  /** Types `text`, one key a character. */
  async type(text: string): Promise<void> {
    for (const ch of text) await this.press(ch);
  }
}
