/**
 * Effects and approvals (oui-spec 0.6.0 types).
 *
 * | Effect | What it changes | Access |
 * |---|---|---|
 * | `view`, `selection`, `navigate`, `open` | What is shown | read |
 * | `edit` | The document, one undo step | write |
 * | `file` | Imports or exports a file | write |
 * | `mutate` | Backend data, through an API operation | write |
 * | `job` | Starts work that outlives the call | write |
 * | `transaction` | An irreversible external act | write, approved |
 */

export type OUIEffectKind =
  | 'view'
  | 'selection'
  | 'navigate'
  | 'open'
  | 'edit'
  | 'file'
  | 'mutate'
  | 'job'
  | 'transaction';

/** Every effect, in the order of the table above. */
export const OUI_EFFECT_KINDS: readonly OUIEffectKind[] = Object.freeze([
  'view',
  'selection',
  'navigate',
  'open',
  'edit',
  'file',
  'mutate',
  'job',
  'transaction',
]);

/** Whether an effect only changes what is shown, or changes something. */
export const OUI_EFFECT_ACCESS: Readonly<Record<OUIEffectKind, 'read' | 'write'>> = Object.freeze({
  view: 'read',
  selection: 'read',
  navigate: 'read',
  open: 'read',
  edit: 'write',
  file: 'write',
  mutate: 'write',
  job: 'write',
  transaction: 'write',
});

export function isEffectKind(effect: unknown): effect is OUIEffectKind {
  return typeof effect === 'string' && (OUI_EFFECT_KINDS as readonly string[]).includes(effect);
}

/**
 * `read` or `write`. An action that declares no effect is a `write`: nothing
 * says it only shows. A value outside the vocabulary is treated the same way
 * (nothing says it only shows either).
 */
export function effectAccess(effect: OUIEffectKind | undefined): 'read' | 'write' {
  return isEffectKind(effect) ? OUI_EFFECT_ACCESS[effect] : 'write';
}

/**
 * Whether running an action needs the user's approval of the exact request: a
 * `transaction` always, and a `write` declared destructive (`confirm: true`).
 * Nothing waives these.
 */
export function requiresApproval(effect: OUIEffectKind | undefined, destructive?: boolean): boolean {
  if (effect === 'transaction') return true;
  return destructive === true && effectAccess(effect) === 'write';
}
