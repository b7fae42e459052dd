/**
 * The OUI protocol core: types, effects and approvals, canonical JSON and the
 * two hashes, event parsing, JSON Schema validation. Pure: runs in Node,
 * pages, workers and the panel.
 */
export * from './oui-types.ts';
export * from './effects.ts';
export * from './canonical.ts';
export * from './hashes.ts';
export { MAX_PROBLEMS, type Problem } from './parse-problems.ts';
export { CIRCULAR, MAX_CLONE_DEPTH, MAX_CLONE_VALUES, TRUNCATED_DEPTH, TRUNCATED_SIZE, UNREADABLE, isIncomplete, toJsonSafe } from './json-copy.ts';
export { MAX_JSON_DEPTH, isStackOverflow, jsonPrefix, stringifyJson } from './json-text.ts';
export * from './events.ts';
export * from './acknowledgments.ts';
export * from './schema.ts';
export * from './base64.ts';
export * from './engineio.ts';
export * from './socketio.ts';
export * from './json-object.ts';
