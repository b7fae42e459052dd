/**
 * The coupon widget: an iframe client speaking OUI over postMessage with its
 * host page (the host is its agent runtime). It talks only to `parent`, at
 * the one origin it trusts, and never posts to '*'. That origin is its own
 * (the demo serves page and frame together), or, when the host embeds it from
 * another origin (`?crossOrigin=1` on the page), the one the host names in
 * `?parentOrigin=`; a real widget would hard-code its hosts.
 */
import { ActionError, OUIClient } from './oui-client.ts';
import { postMessageChildLink } from './links.ts';
import { couponSurface } from './surfaces.ts';
import { COUPONS } from './shop-data.ts';

const TRUSTED_PARENT_ORIGIN = trustedParentOrigin();

function trustedParentOrigin(): string {
  const named = new URLSearchParams(location.search).get('parentOrigin');
  try {
    const url = named ? new URL(named) : null;
    if (url && (url.hostname === '127.0.0.1' || url.hostname === 'localhost') && url.origin === named) return named;
  } catch {
    // Not an origin: fall back to our own.
  }
  return location.origin;
}

let coupon: { code: string; percentOff: number } | null = null;
let message = '';

const root = document.getElementById('widget')!;
root.innerHTML = `
  <form id="coupon-form" class="coupon-form">
    <input id="coupon-code" placeholder="Code, e.g. SAVE10" autocomplete="off" aria-label="Coupon code">
    <button id="coupon-apply" class="btn small">Apply</button>
  </form>
  <div id="coupon-current" class="coupon-current"></div>
  <div id="coupon-message" class="muted small"></div>`;

function render() {
  const cur = document.getElementById('coupon-current')!;
  cur.innerHTML = coupon
    ? `<span class="chip ok" id="coupon-applied" data-code="${coupon.code}">${coupon.code} · ${coupon.percentOff}% off</span> <button id="coupon-remove" class="btn tiny ghost">Remove</button>`
    : '<span class="muted small">No coupon applied.</span>';
  document.getElementById('coupon-message')!.textContent = message;
  document.getElementById('coupon-remove')?.addEventListener('click', () => {
    removeCoupon();
  });
}

function applyCoupon(code: string) {
  const pct = COUPONS[code];
  if (!pct) {
    message = `${code} is not a valid code.`;
    changed();
    throw new ActionError('app:coupon_invalid', `${code} is not a valid coupon code`, { code });
  }
  coupon = { code, percentOff: pct };
  message = '';
  changed();
  return { ...coupon };
}

function removeCoupon() {
  const removed = coupon?.code ?? null;
  coupon = null;
  changed();
  return { removed };
}

function changed() {
  render();
  client?.notify();
}

document.getElementById('coupon-form')!.addEventListener('submit', (e) => {
  e.preventDefault();
  const input = document.getElementById('coupon-code') as HTMLInputElement;
  try {
    applyCoupon(input.value.trim().toUpperCase());
    input.value = '';
  } catch {
    /* shown in the message */
  }
});

let client: OUIClient | null = null;
if (window.parent !== window) {
  const link = postMessageChildLink(window.parent, TRUSTED_PARENT_ORIGIN);
  client = new OUIClient({ name: 'iframe', link, route: () => '/' });
  client.define({
    surface: couponSurface,
    handlers: {
      apply_coupon: (p: { code: string }) => applyCoupon(p.code),
      remove_coupon: () => removeCoupon(),
    },
    observe: { coupon: () => coupon },
  });
}
render();

Object.defineProperty(window, '__frameDemo', {
  value: Object.freeze({ state: () => ({ coupon, connected: client?.connected ?? false, surfaces: client?.mounted().map((s) => s.id) ?? [] }) }),
});
