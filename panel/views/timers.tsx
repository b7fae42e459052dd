/**
 * The toolbar's Timers…: the timers the traffic is judged against, beside the
 * Spec menu. §7.5's timeouts are the agent runtime's and configurable, and
 * §7.3.7's re-answer interval is the client's; a late answer says something
 * about the runtime's timer, not that the client erred. So the user says
 * what the app's parties run with (the spec's defaults otherwise), and a
 * change judges the recorded session again at once, as the Spec menu does.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useStore } from '../store-context.ts';
import { SPEC_TIMERS, TIMER_KEYS, type Timers } from '../../src/session/model/timers.ts';

export const TIMER_FIELDS: ReadonlyArray<{ key: keyof Timers; label: string; short: string; title: string }> = [
  { key: 'syncMs', label: 'Sync result timeout (ms)', short: 'sync', title: "§7.5, the agent runtime's: how long it waits for a sync action's result before it answers TIMEOUT" },
  { key: 'asyncAckMs', label: 'Async ack timeout (ms)', short: 'ack', title: "§7.5, the agent runtime's: how long it waits for an async action's interim acknowledgment" },
  { key: 'observationPullMs', label: 'Observation pull timeout (ms)', short: 'pull', title: "§7.5, the agent runtime's: how long it waits for the update an observation:request asks for" },
  { key: 'reanswerMs', label: 'Re-answer interval (ms)', short: 're-answer', title: "§7.3.7, the client's: how long it waits before answering a repeated request again" },
];

/** `30 s`, `1.5 s`, `250 ms`, `2 min`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1000} s`;
}

/** The timers that differ from the spec's, as `sync 2 s` phrases. */
export function customTimers(t: Readonly<Timers>): string[] {
  return TIMER_FIELDS.filter((f) => t[f.key] !== SPEC_TIMERS[f.key]).map((f) => `${f.short} ${duration(t[f.key])}`);
}

function TimerField({ field, value }: { field: (typeof TIMER_FIELDS)[number]; value: number }) {
  const store = useStore();
  const [text, setText] = useState(String(value));
  const [invalid, setInvalid] = useState(false);
  const id = `timer-${field.key}`;
  // A value set elsewhere (Spec defaults, another panel's setting) shows; the input keeps its focus.
  useEffect(() => {
    setText(String(value));
    setInvalid(false);
  }, [value]);
  const commit = () => {
    const n = text.trim() === '' ? NaN : Number(text);
    setInvalid(!store.setTimers({ [field.key]: n }));
  };
  return (
    <div class="timer-field">
      <label for={id} title={field.title}>
        {field.label}
      </label>
      <input
        id={id}
        type="number"
        min={1}
        max={86_400_000}
        step={1}
        inputMode="numeric"
        value={text}
        data-testid={id}
        aria-invalid={invalid}
        aria-describedby={invalid ? `${id}-error` : undefined}
        title={`${field.title} (spec default ${SPEC_TIMERS[field.key]})`}
        onInput={(e) => {
          setText((e.target as HTMLInputElement).value);
          setInvalid(false);
        }}
        onChange={commit}
      />
      {invalid && (
        <span class="warn" id={`${id}-error`} role="alert">
          not a timer: more than 0 ms and at most a day
        </span>
      )}
    </div>
  );
}

export function TimersButton() {
  const store = useStore();
  const timers = store.timers.value;
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLSpanElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const custom = customTimers(timers);
  const close = (focusButton: boolean) => {
    setOpen(false);
    if (focusButton) button.current?.focus();
  };
  useEffect(() => {
    if (!open) return;
    (box.current?.querySelector('input') as HTMLInputElement | null)?.focus();
    const outside = (e: MouseEvent) => {
      if (box.current && !box.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('mousedown', outside);
    return () => document.removeEventListener('mousedown', outside);
  }, [open]);
  return (
    <span
      class="timers"
      ref={box}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && open) {
          e.stopPropagation();
          close(true);
        }
      }}
    >
      <button
        ref={button}
        class={custom.length ? 'active' : ''}
        aria-expanded={open}
        aria-controls="timers-popover"
        data-testid="timers"
        title={`The runtime's and the client's timers the traffic is judged against (${TIMER_FIELDS.map((f) => `${f.short} ${duration(timers[f.key])}`).join(', ')}): the spec makes them configurable, so set the ones your app runs with`}
        onClick={() => setOpen(!open)}
      >
        {custom.length ? 'Timers (set)…' : 'Timers…'}
      </button>
      {open && (
        <div class="timers-popover" id="timers-popover" role="group" aria-label="Timers">
          <p class="muted">
            The agent runtime's timeouts (§7.5, configurable) and the client's re-answer interval (§7.3.7). A late answer tells about the runtime's timer, not an error of the client: set the ones your
            app runs with.
          </p>
          {TIMER_FIELDS.map((f) => (
            <TimerField key={f.key} field={f} value={timers[f.key]} />
          ))}
          <div class="timer-actions">
            <button disabled={!custom.length} onClick={() => store.setTimers({ ...SPEC_TIMERS })} title={`The spec's: ${TIMER_KEYS.map((k) => `${k} ${SPEC_TIMERS[k]}`).join(', ')}`}>
              Spec defaults
            </button>
            <button onClick={() => close(true)}>Done</button>
          </div>
        </div>
      )}
    </span>
  );
}
