export * from './types.ts';
export * from './effects.ts';
export * from './canonical.ts';
export * from './hashes.ts';
