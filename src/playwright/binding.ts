import { FIXTURE_BINDING } from '../capture/contract.ts';

/**
 * The binding every frame's bridge hands its batches to: the contract's one
 * name, which content/fixture-bridge.ts reads too. Long and namespaced, so
 * that no app's global is in its way.
 */
export const OUI_FIXTURE_BINDING: string = FIXTURE_BINDING;

/**
 * In the built init script, the type of the event a frame's bridge takes flush
 * requests on (content/fixture-bridge.ts). The fixture replaces it with a
 * fresh secret per browser context, so no page script can name it.
 */
export const OUI_FLUSH_EVENT_PLACEHOLDER = '__OUI_FIXTURE_FLUSH_EVENT__';

/** In the built init script, the type of the event a frame's bridge takes the fixture's commands on; replaced like the flush event's. */
export const OUI_COMMAND_EVENT_PLACEHOLDER = '__OUI_FIXTURE_COMMAND_EVENT__';
