/**
 * The binding every frame's bridge hands its batches to (content/fixture-bridge.ts
 * names it too, and the end-to-end test fails if the two differ). Long and namespaced, so
 * that no app's global is in its way.
 */
export const OUI_FIXTURE_BINDING = '__ouiDevtoolsPlaywrightCapture';
