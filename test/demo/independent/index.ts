/**
 * The demo's protocol helpers, each written from the spec text with libraries
 * the product does not use for the same job (canonicalize for RFC 8785, Web
 * Crypto / node:crypto for SHA-256, Ajv for JSON Schema, a BigInt FNV-1a), so
 * that "hash matches" and "client answered VALIDATION_ERROR" verdicts on demo
 * traffic are two implementations agreeing, not the product agreeing with
 * itself. Checked against the published vectors in
 * test/unit/demo-independent.test.ts. Browser-safe: the Node-only sync args
 * hash is in args-hash-node.ts.
 */
export { canonicalJson, NotIJsonError } from './canonical-json.ts';
export { argsHash } from './args-hash.ts';
export { surfacesHash, sortedJson, fnv1a64Utf16 } from './surfaces-hash.ts';
export { precompile, validate, type Validation, type ValidationError } from './validate.ts';
export { requiresApproval, effectAccess } from './approval.ts';
