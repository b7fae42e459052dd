/** Requests the user saved for an origin: save what the composer holds, load one back into it, delete. */
import { useEffect, useState } from 'preact/hooks';
import { parseParams } from '../composer.ts';
import { short } from '../display-text.ts';
import type { SavedRequest } from '../injector.ts';
import { useStore } from '../store-context.ts';

export function SavedRequests({ origin, onLoad }: { origin: string; onLoad: (s: SavedRequest) => void }) {
  const { injector, ui } = useStore();
  const [list, setList] = useState<SavedRequest[]>([]);
  const [name, setName] = useState('');
  const c = ui.composer.value;
  useEffect(() => {
    if (origin) injector.loadSaved(origin).then(setList, () => setList([]));
  }, [origin, injector]);
  if (!origin) return null;
  return (
    <section class="saved">
      <h3>Saved for {origin}</h3>
      <div class="row-inline">
        <input aria-label="Name to save as" placeholder="name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <button
          disabled={!name || !c.actionId}
          onClick={async () => {
            const parsed = parseParams(c.paramsText);
            setList(await injector.saveRequest(origin, { name, surfaceId: c.surfaceId, actionId: c.actionId, params: parsed.ok ? parsed.value : c.paramsText, savedAt: Date.now() }));
            setName('');
          }}
        >
          Save request
        </button>
      </div>
      <ul>
        {list.map((s) => (
          <li key={s.name}>
            <button class="link" onClick={() => onLoad(s)}>
              {s.name}
            </button>{' '}
            <span class="muted">
              {s.surfaceId} › {s.actionId} {short(s.params, 60)}
            </span>{' '}
            <button class="icon" aria-label={`Delete ${s.name}`} onClick={async () => setList(await injector.deleteSaved(origin, s.name))}>
              ✕
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
