/**
 * A recording with secrets in it, as a session file: a password the login
 * action's schema declares writeOnly (through a $ref into $defs), an API
 * token in another action's params (by its member name), a card number
 * typed into an observed search box (by the Luhn check), a bearer token in
 * the WebSocket's URL, and the password echoed back in an error message.
 * Hashes by the independent implementations (test/demo/independent): the
 * `pay` request carries an approval whose argsHash is over the real params,
 * so a linter judging the redacted params would see a mismatch; the result
 * of `login` carries a correct surfacesHash. One result is wrong on purpose
 * (a success without data where the output schema requires it? no: a result
 * whose `surfacesHash` is absent) so the recording has findings to keep.
 */
import { argsHashSync } from '../demo/independent/args-hash-node.ts';
import { surfacesHash } from '../demo/independent/surfaces-hash.ts';

export const SECRETS = {
  password: 'hunter2-Sup3rSecret',
  token: 'tok_live_9f8e7d6c5b4a',
  card: '4111 1111 1111 1111',
  urlToken: 'eyJhbGciOiJub25lIn0.url-token',
  cvv: '7391',
};

const T0 = 1_767_225_600_000;

export const SURFACE = {
  id: 'account',
  name: 'Account',
  description: 'Sign in and pay',
  actions: [
    {
      id: 'login',
      description: 'Sign in',
      input: {
        type: 'object',
        properties: { user: { type: 'string' }, password: { $ref: '#/$defs/secret' } },
        required: ['user', 'password'],
        $defs: { secret: { type: 'string', writeOnly: true, minLength: 8 } },
      },
    },
    {
      id: 'sync',
      description: 'Sync with a token',
      input: { type: 'object', properties: { accessToken: { type: 'string' }, full: { type: 'boolean' } } },
    },
    {
      id: 'pay',
      description: 'Pay',
      effect: 'transaction',
      input: { type: 'object', properties: { amount: { type: 'number' }, cvv: { type: 'string', format: 'password' } } },
    },
  ],
  observations: [{ id: 'search', description: 'What is typed in the search box', schema: { type: 'object', properties: { query: { type: 'string' } } } }],
};

export function secretSession(): Record<string, unknown> {
  const hash = surfacesHash([SURFACE]);
  const c = 'h/1';
  let n = 0;
  const ev = (dir: 'in' | 'out', type: string, payload: unknown, dt: number) => {
    const e = { id: `h/1/${++n}`, client: c, t: T0 + dt, dir, kind: 'event', type, payload, size: 100 };
    return { ...e, raw: JSON.stringify({ type, payload }) };
  };
  const payParams = { amount: 12.5, cvv: SECRETS.cvv };
  return {
    format: 'oui-devtools-session',
    version: 1,
    exportedAt: new Date(T0).toISOString(),
    clients: [{ key: c, kind: 'websocket', label: `wss://shop.example/oui?access_token=${SECRETS.urlToken}`, origin: 'https://shop.example', frameUrl: 'https://shop.example/', frameId: 0 }],
    events: [
      ev('out', 'surface:register', { surface: SURFACE, timestamp: T0 }, 0),
      ev('in', 'action:request', { requestId: 'r1', surfaceId: 'account', actionId: 'login', params: { user: 'ann', password: SECRETS.password }, timestamp: T0 + 10 }, 10),
      ev('out', 'action:result', { requestId: 'r1', success: false, error: { code: 'app:denied', message: `wrong password ${SECRETS.password} for ann` }, timestamp: T0 + 20, surfacesHash: hash }, 20),
      ev('in', 'action:request', { requestId: 'r2', surfaceId: 'account', actionId: 'sync', params: { accessToken: SECRETS.token, full: true }, timestamp: T0 + 30 }, 30),
      // No surfacesHash: a finding of the client's, on an event with no secret.
      ev('out', 'action:result', { requestId: 'r2', success: true, data: { synced: 3 }, timestamp: T0 + 40 }, 40),
      ev('out', 'observation:update', { surfaceId: 'account', observationId: 'search', value: { query: `card ${SECRETS.card}` }, timestamp: T0 + 50 }, 50),
      ev('in', 'action:request', { requestId: 'r3', surfaceId: 'account', actionId: 'pay', params: payParams, approval: { approvalId: 'a1', argsHash: argsHashSync(payParams) }, timestamp: T0 + 60 }, 60),
      ev('out', 'action:result', { requestId: 'r3', success: true, data: { paid: true }, timestamp: T0 + 70, surfacesHash: hash }, 70),
    ],
  };
}

/** Every secret of the recording, in the forms a file could hold it (as typed, and digits only). */
export function secretForms(): string[] {
  return [SECRETS.password, SECRETS.token, SECRETS.card, SECRETS.card.replace(/ /g, ''), SECRETS.urlToken, SECRETS.cvv];
}
