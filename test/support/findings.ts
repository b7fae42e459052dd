import type { Page } from 'playwright-core';

/** Opens a rule's group in Findings (findings are grouped by rule) and waits for its findings' rows. */
export async function openFindingGroup(panel: Page, rule: string): Promise<void> {
  const group = panel.locator(`.finding-group[data-rule="${rule}"]`);
  await group.waitFor();
  const closed = group.getByRole('button', { expanded: false });
  if (await closed.count()) await closed.first().click();
  await group.locator(`.finding[data-rule="${rule}"]`).first().waitFor();
}
