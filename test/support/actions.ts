/**
 * A user's steps through the panel, counted, for tests that hold the panel to
 * a number of actions per task (the usability review's tasks,
 * test/support/review-tasks.ts). Every click and every key press is one
 * action: a choice in a closed <select> is two (a click to open it, one on
 * the option), typed text one a character, a file picked in the browser's
 * chooser one. Each call also counts one *step* as the review counted them (a
 * click, a choice, a field's entry), so both can be set beside its figures.
 * After each action the panel is let render (two animation frames) before
 * the test reads it.
 */
import type { Frame, Locator, Page } from 'playwright-core';
import { settled } from './keys.ts';

export class ActionCounter {
  actions = 0;
  steps = 0;
  readonly log: string[] = [];
  constructor(private readonly page: Page | Frame) {}

  private async counted(what: string, actions: number, steps = 1): Promise<void> {
    this.actions += actions;
    this.steps += steps;
    this.log.push(actions === 1 ? what : `${what} (${actions})`);
    await settled(this.page);
  }

  /** A click on what `target` finds (with Alt, Shift… held: still one action). */
  async click(target: Locator, what: string, modifiers?: Array<'Alt' | 'Control' | 'ControlOrMeta' | 'Meta' | 'Shift'>): Promise<void> {
    await target.click(modifiers ? { modifiers } : undefined);
    await this.counted(`click ${what}`, 1);
  }

  /** An option of a closed select, by mouse: two actions, open and pick. */
  async choose(select: Locator, option: string | { label: string }, what: string): Promise<void> {
    await select.selectOption(option);
    await this.counted(`choose ${what}`, 2);
  }

  /** Types into a field: a click into it, Ctrl+A over text it already holds, then a key a character. */
  async type(field: Locator, text: string, what: string): Promise<void> {
    await field.click();
    let n = 1;
    if ((await field.inputValue()) !== '') {
      await field.press('ControlOrMeta+a');
      n++;
    }
    await field.pressSequentially(text);
    await this.counted(`type ${JSON.stringify(text)} into ${what}`, n + [...text].length);
  }

  /** Types where focus already is (a field the last action left focused): a key a character. */
  async typeHere(text: string, what: string): Promise<void> {
    await (this.page as Page).keyboard.type(text);
    await this.counted(`type ${JSON.stringify(text)} into ${what}`, [...text].length);
  }

  /** One key where focus is. */
  async press(key: string): Promise<void> {
    await (this.page as Page).keyboard.press(key);
    await this.counted(`key ${key}`, 1);
  }

  /** A file opened through a control that shows the browser's file chooser: its click, and the file picked there. */
  async pickFile(trigger: Locator, file: { name: string; mimeType: string; buffer: Buffer }, what: string): Promise<void> {
    const page = 'waitForEvent' in this.page ? this.page : this.page.page();
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), trigger.click()]);
    await chooser.setFiles(file);
    await this.counted(`pick ${file.name} through ${what}`, 2, 2);
  }

  /** For a failure message and the test's log: "3 actions (2 steps): choose Status = failed (2), click row". */
  toString(): string {
    return `${this.actions} actions (${this.steps} steps): ${this.log.join(', ')}`;
  }
}
