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

/** Only a drag that carries files is ours: a dragged text selection or link is left to the page's inputs. */
function carriesFiles(e: DragEvent): boolean {
  return [...(e.dataTransfer?.types ?? [])].includes('Files');
}

function list(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

export async function importFiles(store: PanelStore, files: File[]): Promise<void> {
  const read: SessionFile[] = [];
  const names: string[] = [];
  const failed: string[] = [];
  for (const f of files) {
    let text: string;
    try {
      text = await f.text();
    } catch (e) {
      failed.push(`${f.name}: the file could not be read (${(e as Error).message})`);
      continue;
    }
    const r = readDroppedFile(text);
    if (r.ok) {
      read.push(r.file);
      names.push(f.name);
    } else failed.push(`${f.name}: ${r.why}`);
  }
  if (!read.length) {
    store.notice.value = `Import failed: ${failed.join('; ') || 'no file was dropped'}; the current session is kept.`;
    return;
  }
  store.importJson(sessionFileText(mergeSessions(read)), list(names));
  if (failed.length && store.notice.value) store.notice.value = `${store.notice.value} Not opened: ${failed.join('; ')}.`;
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
