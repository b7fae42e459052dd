/** A JSON object: not null, not an array. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Page data is JSON, and JSON.parse makes `__proto__` an own member like any
 * other. A copy written with `out[key] = value` would instead set the copy's
 * prototype (and lose the member), so every copy of page data sets members
 * through here.
 */
export function setMember(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}
