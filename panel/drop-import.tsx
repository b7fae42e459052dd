/**
 * Files dropped anywhere on the panel are opened, as the Network panel opens
 * a dropped HAR: a session file, a HAR, or several at once (read as one
 * session). While files are dragged over the panel a hint covers it, so the
 * user knows the drop will be taken.
 */
import { useEffect, useState } from 'preact/hooks';
import { sessionFileText, type SessionFile } from '../src/session/wire/session-file.ts';
import { mergeSessions, readDroppedFile } from './har-import.ts';
import { useStore } from './store-context.ts';
import type { PanelStore } from './store.ts';
import { looksLikeScenario } from './scenarios.ts';

/** Only a drag that carries files is ours: a dragged text selection or link is left to the page's inputs. */
function carriesFiles(e: DragEvent): boolean {
  return [...(e.dataTransfer?.types ?? [])].includes('Files');
}

/** What the toolbar's Import offers to pick: what a drop takes. */
export const IMPORT_ACCEPT = '.json,.har,application/json';

function list(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/**
 * The panel's one way in for files, whether dropped on it or picked with the
 * toolbar's Import: session files and HARs, one or several (read as one
 * session). A lone session file is opened as written, so the import line
 * names the records it skipped; whatever cannot be opened says why in one
 * line and the session on screen stays.
 */
export async function importFiles(store: PanelStore, files: File[]): Promise<void> {
  const read: Array<{ name: string; text: string; file: SessionFile; har: boolean }> = [];
  const failed: Array<{ name: string; why: string }> = [];
  const scenarios: string[] = [];
  for (const f of files) {
    let text: string;
    try {
      text = await f.text();
    } catch (e) {
      failed.push({ name: f.name, why: `the file could not be read (${(e as Error).message})` });
      continue;
    }
    // A scenario file goes to the Scenarios view, kept for the page's origin; the session on screen stays.
    if (looksLikeScenario(text)) {
      const s = await store.scenarios.importText(text, f.name);
      if (s.ok) scenarios.push(f.name);
      else failed.push({ name: f.name, why: store.scenarios.message.peek()?.text.replace(`${f.name} is not a scenario: `, 'not a scenario: ') ?? 'not a scenario' });
      continue;
    }
    const r = readDroppedFile(text);
    if (r.ok) read.push({ name: f.name, text, file: r.file, har: r.har });
    else failed.push({ name: f.name, why: r.why });
  }
  const kept = 'the current session is kept';
  if (scenarios.length) store.view.value = 'scenarios';
  if (!read.length && scenarios.length && !failed.length) return;
  if (!read.length) {
    const only = failed.length === 1 ? failed[0]! : undefined;
    store.notice.value = only
      ? `Import of ${only.name} failed: ${only.why}; ${kept}.`
      : `Import failed: ${failed.map((f) => `${f.name}: ${f.why}`).join('; ') || 'no file was given'}; ${kept}.`;
    return;
  }
  const lone = read.length === 1 && !read[0]!.har ? read[0]!.text : undefined;
  store.importJson(lone ?? sessionFileText(mergeSessions(read.map((r) => r.file))), list(read.map((r) => r.name)));
  if (failed.length && store.notice.value) store.notice.value = `${store.notice.value} Not opened: ${failed.map((f) => `${f.name}: ${f.why}`).join('; ')}.`;
}

export function DropImport() {
  const store = useStore();
  const [dragging, setDragging] = useState(false);
  useEffect(() => {
    // dragenter and dragleave fire for every element crossed: the count says whether the drag is still over the panel.
    let depth = 0;
    const enter = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      depth++;
      setDragging(true);
    };
    const over = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      // Without this the browser opens the file in place of the panel.
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const leave = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setDragging(false);
    };
    const drop = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      depth = 0;
      setDragging(false);
      void importFiles(store, [...(e.dataTransfer?.files ?? [])]);
    };
    const on = [
      ['dragenter', enter],
      ['dragover', over],
      ['dragleave', leave],
      ['drop', drop],
    ] as const;
    for (const [type, fn] of on) document.addEventListener(type, fn);
    return () => {
      for (const [type, fn] of on) document.removeEventListener(type, fn);
    };
  }, [store]);
  if (!dragging) return null;
  return (
    <div class="drop-hint" data-testid="drop-hint" aria-hidden="true">
      <p>Drop a session file (.json) or a HAR to open it</p>
    </div>
  );
}
