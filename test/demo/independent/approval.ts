/**
 * Effects and approvals, from the spec types (../shared/spec/000_…txt):
 * `view`, `selection`, `navigate`, `open` change what is shown (read); every
 * other effect, and an action that declares none, is a write. Approval is
 * needed for "a `transaction` always, and a `write` declared destructive"
 * (the demo's actions declare destructive with `confirm: true`).
 */
const READ_EFFECTS: ReadonlySet<string> = new Set(['view', 'selection', 'navigate', 'open']);

export function effectAccess(effect: string | undefined): 'read' | 'write' {
  return effect !== undefined && READ_EFFECTS.has(effect) ? 'read' : 'write';
}

export function requiresApproval(effect: string | undefined, destructive = false): boolean {
  if (effect === 'transaction') return true;
  return destructive && effectAccess(effect) === 'write';
}
