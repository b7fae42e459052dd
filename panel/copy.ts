/**
 * Copy text to the clipboard. DevTools panels often lack the clipboard
 * permission, so fall back to a selected textarea and execCommand.
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

/** JSON of any value, never throwing: page data can be cyclic or absurdly large. */
export function safeJson(value: unknown, indent = 2): string {
  try {
    return JSON.stringify(value, null, indent) ?? 'undefined';
  } catch (e) {
    return `/* cannot serialise: ${(e as Error).message} */`;
  }
}
