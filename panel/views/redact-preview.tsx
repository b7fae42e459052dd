/**
 * The preview before an export (Export, HAR): what redaction will replace,
 * counted per rule and listed by event and JSON pointer (never the values),
 * the user's own pointers for this origin (edited here, kept in extension
 * storage), and the exports: redacted (the default, and the only one a
 * single click makes) or, on purpose, unredacted: behind a checkbox, in a
 * file whose name ends in `-UNREDACTED` and whose `redaction.unredacted`
 * says so.
 */
import { signal } from '@preact/signals';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useModel } from '../store-context.ts';
import type { PanelStore } from '../store.ts';
import { pageOrigin } from './scenarios.tsx';
import { previewOf, readPointerLines, redactedHarText, redactedSessionText, unredactedHarText, unredactedSessionText } from '../redaction.ts';
import { REDACTION_RULES, type RedactionRule } from '../../src/session/redact/redactor.ts';
import { SECRET_KEY_NAMES } from '../../src/session/redact/keys.ts';

/** Which export the preview is for, or null when it is closed. */
export const exportPreview = signal<null | 'json' | 'har'>(null);

const RULE_TEXT: Record<RedactionRule, string> = {
  pointer: 'your pointers for this origin',
  schema: 'declared writeOnly or format "password" by the surface’s schema',
  key: `members named like secrets (${SECRET_KEY_NAMES.slice(0, 8).join(', ')}, …), and ?token= in URLs`,
  card: 'card numbers (Luhn check)',
  echo: 'a redacted value seen again (a message, a raw frame)',
};

const LISTED = 200;

function save(name: string, text: string): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

function fileName(har: boolean, unredacted: boolean): string {
  return `oui-session-${new Date().toISOString().replace(/[:.]/g, '-')}${unredacted ? '-UNREDACTED' : ''}.${har ? 'har' : 'json'}`;
}

export function RedactPreview() {
  const store = useModel();
  const kind = exportPreview.value;
  if (!kind) return null;
  return <Preview store={store} har={kind === 'har'} />;
}

function Preview({ store, har }: { store: PanelStore; har: boolean }) {
  const settings = store.redaction;
  const origin = pageOrigin(store);
  useEffect(() => {
    if (origin !== settings.origin.peek()) void settings.load(origin);
  }, [origin, settings]);
  const pointers = settings.pointers.value;
  const [text, setText] = useState(pointers.join('\n'));
  const [sure, setSure] = useState(false);
  useEffect(() => setText(pointers.join('\n')), [pointers]);
  const { recorder } = store;
  const events = recorder.events.length;
  const preview = useMemo(() => previewOf(recorder, settings.options()), [recorder, events, pointers]);
  const { bad } = readPointerLines(text);
  const info = preview.info;
  const close = () => (exportPreview.value = null);
  const exportRedacted = () => {
    if (har) void redactedHarText(recorder, settings.options()).then((text) => save(fileName(true, false), text));
    else save(fileName(false, false), redactedSessionText(preview, store.model.findings));
    close();
  };
  const exportUnredacted = () => {
    save(fileName(har, true), har ? unredactedHarText(recorder) : unredactedSessionText(recorder));
    close();
  };
  const typeOf = (id: string | undefined) => (id ? recorder.byId.get(id)?.type ?? recorder.byId.get(id)?.kind ?? '' : 'client');
  return (
    <section class="redact-preview" role="dialog" aria-label="Export with redaction" data-testid="redact-preview">
      <h2>
        Export {har ? 'HAR' : 'session'} · redaction
      </h2>
      <p data-testid="redact-summary">
        {info.redacted.length === 0 ? 'Nothing to redact' : `${info.redacted.length} ${info.redacted.length === 1 ? 'value' : 'values'} will be replaced by ${info.marker}`} in {events} events
        {har
          ? '; the HAR carries the list of what was replaced and the findings lint judges of it before redaction'
          : `; the file carries the ${store.model.findings.length} ${store.model.findings.length === 1 ? 'finding' : 'findings'} judged before redaction`}
        .
      </p>
      <table class="redact-counts" data-testid="redact-counts">
        <thead>
          <tr>
            <th>rule</th>
            <th>values</th>
            <th>what it replaces</th>
          </tr>
        </thead>
        <tbody>
          {REDACTION_RULES.map((r) => (
            <tr data-rule={r}>
              <td class="mono">{r}</td>
              <td class="num">{info.counts[r]}</td>
              <td>{RULE_TEXT[r]}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {info.redacted.length > 0 && (
        <details open={info.redacted.length <= 12}>
          <summary>Where ({info.redacted.length > LISTED ? `first ${LISTED} of ${info.redacted.length}` : info.redacted.length})</summary>
          <ul class="redact-places mono" data-testid="redact-places">
            {info.redacted.slice(0, LISTED).map((r) => (
              <li>
                {r.event ?? r.client} <span class="dim">{typeOf(r.event)}</span> {r.pointer} <span class="dim">({r.rule})</span>
              </li>
            ))}
          </ul>
        </details>
      )}
      <label class="redact-pointers">
        Your JSON pointers for {origin || 'this page'} (one a line, into each event’s payload, e.g. /params/otp):
        <textarea rows={3} data-testid="redact-pointers" value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} spellcheck={false} />
      </label>
      {bad.length > 0 && (
        <p class="warn" role="alert">
          Not a JSON pointer (it starts with “/”): {bad[0]}
        </p>
      )}
      <div class="redact-actions">
        <button data-testid="redact-apply" disabled={bad.length > 0 || text === pointers.join('\n')} onClick={() => void settings.save(readPointerLines(text).pointers)}>
          Apply pointers
        </button>
        <button class="primary" data-testid="export-redacted" onClick={exportRedacted}>
          Export redacted
        </button>
        <button onClick={close}>Cancel</button>
        <span class="redact-unredacted">
          <label>
            <input type="checkbox" data-testid="unredacted-sure" checked={sure} onChange={(e) => setSure((e.target as HTMLInputElement).checked)} /> I know the file will hold secrets
          </label>
          <button data-testid="export-unredacted" disabled={!sure} onClick={exportUnredacted}>
            Export unredacted
          </button>
        </span>
      </div>
    </section>
  );
}
