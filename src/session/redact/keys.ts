/**
 * Member names that hold secrets, whatever the schema says: the names
 * credentials go by in HTTP (Authorization, Cookie, Set-Cookie), OAuth and
 * API keys, and forms. Matched case-insensitively, with `-`, `_`, `.` and
 * spaces ignored, so `api_key`, `apiKey`, `API-Key` and `api key` are one name.
 *
 * Whole names, or a name that ends in one of them (`accessToken`,
 * `x-api-key`, `userPassword`, `sessionSecret`): a name that only contains
 * one in the middle (`tokenizer`, `secretary`) is not a secret.
 */
export const SECRET_KEY_NAMES: readonly string[] = [
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'pin',
  'otp',
  'token',
  'secret',
  'authorization',
  'auth',
  'cookie',
  'setcookie',
  'apikey',
  'accesskey',
  'privatekey',
  'clientsecret',
  'sessionid',
  'credential',
  'credentials',
  'cvv',
  'cvc',
  'cardnumber',
  'iban',
  'ssn',
];

/** Names that end in a secret's name but are not one (a count, a flag, a kind of token). */
const NOT_SECRET = new Set(['tokens', 'tokencount', 'maxtokens', 'tokentype', 'tokenusage', 'spin', 'hasPassword'.toLowerCase(), 'authtype', 'oauth']);

const SUFFIXES = SECRET_KEY_NAMES.filter((n) => n.length >= 5);

export function normalizeKey(name: string): string {
  return name.toLowerCase().replace(/[-_.\s]+/g, '');
}

/** Whether a member of this name holds a secret. */
export function isSecretKey(name: string): boolean {
  const n = normalizeKey(name);
  if (!n || NOT_SECRET.has(n)) return false;
  if (SECRET_KEY_NAMES.includes(n)) return true;
  return SUFFIXES.some((s) => n.endsWith(s));
}
