/**
 * OUI Demo Shop: the page `npm start` opens and the end-to-end tests drive.
 *
 * Four OUI clients live on this one page, each kept apart:
 * 1. Socket.IO to namespace `/oui` (default transports: polling, then the
 *    upgrade to WebSocket; `?transport=websocket` forces WebSocket only,
 *    `?transport=fetch` polls with fetch() instead of XMLHttpRequest):
 *    shop-nav, catalog, cart, checkout, orders.
 * 2. Plain WebSocket JSON to `/ws-json`: notifications.
 * 3. An iframe (`/frame.html`) speaking postMessage; this page is its runtime
 *    (the "host assistant"): coupon-widget.
 * 4. In-process, through the direct-call transport handed to
 *    `window.__OUI_DEVTOOLS_HOOK__`: help, driven by the in-page assistant.
 *
 * Works without the DevTools extension. Query parameters: `transport=websocket`
 * (or `polling`, `fetch-polling`: long-polling only),
 * `reanswerMs=N` (the §7.3.7 re-answer interval, default 8000), `grantTtlMs=N`
 * (how long the shop client's approval grants last, default 60000), and, for the
 * tests that must catch a wrong client, `broken=` one or more of (comma-separated):
 * - `result-id`: the shop client (Socket.IO) answers every request with a
 *   result whose requestId is not the request's (it appends `:result`, an id
 *   of its own making): §7.3.3, the runtime never gets its answer;
 * - `surface-id`: the notifications client (plain WebSocket) registers its
 *   surface under its display name, `Notifications`, not a valid id (§3.2).
 * Without it every client is conformant.
 */
import { io } from 'socket.io-client';
import { Fetch, WebSocket as EngineWebSocket } from 'engine.io-client';
import type { OUIActionResult, OUISurface } from '../../../src/protocol/index.ts';
import { ActionError, OUIClient, type ActivityEntry, type ApprovalAsk, type SurfaceDefinition } from './oui-client.ts';
import { createDirectTransport, directLink, InPageAssistant, PostMessageHost, socketIoLink, wsJsonLink } from './links.ts';
import { COUPONS, PRODUCTS, SHIPPING_COST, money, productById, round2, type Product } from './shop-data.ts';
import {
  HELP_ARTICLES,
  ROUTES,
  cartSurface,
  catalogSurface,
  checkoutSurface,
  helpSurface,
  notificationsSurface,
  ordersSurface,
  shopNavSurface,
  type Route,
} from './surfaces.ts';

// ------------------------------------------------------------------- state

interface CartLine {
  productId: string;
  quantity: number;
  options?: { size?: string; color?: string };
}
interface Order {
  id: string;
  total: number;
  status: 'placed' | 'cancelled';
  items: number;
  createdAt: number;
  shipping: 'standard' | 'express';
  payment: string;
}
interface Notification {
  id: string;
  text: string;
  read: boolean;
  at: number;
}
interface ExportJob {
  exportId: string;
  status: 'running' | 'done';
  progress: number;
  format: string;
  rows?: number;
}

const qs = new URLSearchParams(location.search);
const state = {
  route: normalizeRoute(location.pathname) as Route,
  search: { query: '', category: 'all', maxPrice: undefined as number | undefined, sort: 'relevance', limit: 20 },
  results: PRODUCTS.map((p) => p.id),
  cart: [] as CartLine[],
  stock: Object.fromEntries(PRODUCTS.map((p) => [p.id, p.stock])) as Record<string, number>,
  orders: [] as Order[],
  lastOrderId: null as string | null,
  coupon: null as { code: string; percentOff: number } | null,
  notifications: [
    { id: 'n1', text: 'Welcome to the OUI Demo Shop.', read: false, at: Date.now() - 60_000 },
    { id: 'n2', text: 'Free standard shipping this week.', read: false, at: Date.now() - 30_000 },
    { id: 'n3', text: 'New in: holographic stickers.', read: true, at: Date.now() - 10_000 },
  ] as Notification[],
  exportJob: null as ExportJob | null,
  helpArticle: null as string | null,
  tip: null as string | null,
};
let orderSeq = 1000;
let notifSeq = 3;

function normalizeRoute(path: string): Route {
  const p = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return ((ROUTES as readonly string[]).includes(p) ? p : '/') as Route;
}

// ----------------------------------------------------------------- helpers

const $ = <T extends HTMLElement = HTMLElement>(sel: string, root: ParentNode = document) => root.querySelector(sel) as T | null;
const esc = (s: unknown) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function cartCount(): number {
  return state.cart.reduce((n, l) => n + l.quantity, 0);
}
function cartTotals() {
  const subtotal = round2(state.cart.reduce((s, l) => s + l.quantity * (productById(l.productId)?.price ?? 0), 0));
  const discount = state.coupon ? round2((subtotal * state.coupon.percentOff) / 100) : 0;
  return { subtotal, discount, total: round2(subtotal - discount), currency: 'USD' as const, coupon: state.coupon?.code ?? null };
}
function orderTotal(method: 'standard' | 'express' = 'standard'): number {
  return round2(cartTotals().total + SHIPPING_COST[method]);
}
function cartItems() {
  return state.cart.map((l) => {
    const p = productById(l.productId)!;
    return { productId: l.productId, name: p.name, quantity: l.quantity, unitPrice: p.price, ...(l.options ? { options: l.options } : {}) };
  });
}
function productView(p: Product) {
  return { id: p.id, name: p.name, category: p.category, price: p.price, stock: state.stock[p.id] ?? 0 };
}
function notify(text: string) {
  state.notifications.unshift({ id: `n${++notifSeq}`, text, read: false, at: Date.now() });
  changed();
}

// ------------------------------------------------------------- app actions

function runSearch(params: { query?: string; category?: string; maxPrice?: number; sort?: string; limit?: number }) {
  const s = {
    query: params.query ?? '',
    category: params.category ?? 'all',
    maxPrice: params.maxPrice,
    sort: params.sort ?? 'relevance',
    limit: params.limit ?? 20,
  };
  const words = s.query.toLowerCase().split(/\s+/).filter(Boolean);
  let list = PRODUCTS.filter(
    (p) =>
      (s.category === 'all' || p.category === s.category) &&
      (s.maxPrice === undefined || p.price <= s.maxPrice) &&
      words.every((w) => `${p.name} ${p.blurb} ${p.category}`.toLowerCase().includes(w)),
  );
  if (s.sort === 'price_asc') list = [...list].sort((a, b) => a.price - b.price);
  if (s.sort === 'price_desc') list = [...list].sort((a, b) => b.price - a.price);
  const total = list.length;
  list = list.slice(0, s.limit);
  state.search = s;
  state.results = list.map((p) => p.id);
  changed();
  return { results: list.map(productView), total };
}

function addToCart(productId: string, quantity = 1, options?: CartLine['options']) {
  const p = productById(productId);
  if (!p) throw new ActionError('PRECONDITION_FAILED', `no product ${productId}`);
  const inCart = state.cart.filter((l) => l.productId === productId).reduce((n, l) => n + l.quantity, 0);
  const stock = state.stock[productId] ?? 0;
  if (inCart + quantity > stock) throw new ActionError('PRECONDITION_FAILED', `only ${stock - inCart} of ${p.name} left in stock`, { stock, inCart });
  const same = state.cart.find((l) => l.productId === productId && JSON.stringify(l.options ?? null) === JSON.stringify(options ?? null));
  if (same) same.quantity += quantity;
  else state.cart.push({ productId, quantity, ...(options ? { options } : {}) });
  changed();
  const line = cartItems().find((l) => l.productId === productId)!;
  return { cartCount: cartCount(), line, total: cartTotals().total };
}

function removeItem(productId: string, quantity?: number) {
  const lines = state.cart.filter((l) => l.productId === productId);
  if (lines.length === 0) throw new ActionError('PRECONDITION_FAILED', `${productId} is not in the cart`);
  let toRemove = quantity ?? Infinity;
  let removed = 0;
  for (const l of lines) {
    const n = Math.min(l.quantity, toRemove);
    l.quantity -= n;
    toRemove -= n;
    removed += n;
  }
  state.cart = state.cart.filter((l) => l.quantity > 0);
  changed();
  return { removed, cartCount: cartCount() };
}

function clearCart() {
  const removedLines = state.cart.length;
  state.cart = [];
  changed();
  return { removedLines };
}

interface PlaceOrderParams {
  shipping: { name: string; address: { street: string; city: string; postcode: string; country: string }; method?: 'standard' | 'express' };
  payment: { type: 'card'; last4: string } | { type: 'invoice'; poNumber?: string };
  note?: string;
}

function placeOrder(params: PlaceOrderParams) {
  if (state.cart.length === 0) throw new ActionError('PRECONDITION_FAILED', 'the cart is empty');
  const method = params.shipping.method ?? 'standard';
  const total = orderTotal(method);
  for (const l of state.cart) state.stock[l.productId] = (state.stock[l.productId] ?? 0) - l.quantity;
  const order: Order = {
    id: `ORD-${++orderSeq}`,
    total,
    status: 'placed',
    items: cartCount(),
    createdAt: Date.now(),
    shipping: method,
    payment: params.payment.type === 'card' ? `card •••• ${params.payment.last4}` : 'invoice',
  };
  state.orders.unshift(order);
  state.lastOrderId = order.id;
  state.cart = [];
  notify(`Order ${order.id} placed: ${money(total)}.`);
  changed();
  return { orderId: order.id, total, status: 'placed' as const };
}

function cancelOrder(orderId: string) {
  const o = state.orders.find((x) => x.id === orderId);
  if (!o) throw new ActionError('app:order_not_found', `no order ${orderId}`);
  if (o.status === 'cancelled') throw new ActionError('PRECONDITION_FAILED', `${orderId} is already cancelled`);
  o.status = 'cancelled';
  changed();
  return { orderId, status: 'cancelled' };
}

let exportSeq = 0;
async function exportOrders(params: { format?: 'csv' | 'json'; range?: unknown; columns?: string[] }, progress: (p: number) => void) {
  const format = params.format ?? 'csv';
  const job: ExportJob = { exportId: `exp-${++exportSeq}`, status: 'running', progress: 0, format };
  state.exportJob = job;
  changed();
  const cols = (params.columns?.length ? params.columns : ['id', 'total', 'status', 'items', 'createdAt']) as Array<keyof Order>;
  for (const p of [35, 70]) {
    await sleep(350);
    job.progress = p;
    changed();
    progress(p);
  }
  await sleep(300);
  const rows = state.orders.map((o) => Object.fromEntries(cols.map((c) => [c, o[c]])));
  const content = format === 'json' ? JSON.stringify(rows) : [cols.join(','), ...rows.map((r) => cols.map((c) => String(r[c])).join(','))].join('\n');
  job.status = 'done';
  job.progress = 100;
  job.rows = rows.length;
  changed();
  return { exportId: job.exportId, format, rows: rows.length, bytes: new TextEncoder().encode(content).length, content };
}

function navigate(route: Route, replace = false) {
  const previous = state.route;
  if (route !== state.route || location.pathname !== route) {
    const url = route + location.search;
    if (replace) history.replaceState(null, '', url);
    else history.pushState(null, '', url);
  }
  state.route = route;
  renderView();
  for (const c of clients()) c.setRoute();
  changed();
  return { route, previous };
}

window.addEventListener('popstate', () => {
  state.route = normalizeRoute(location.pathname);
  renderView();
  for (const c of clients()) c.setRoute();
  changed();
});

// ------------------------------------------------------------ the clients

const reanswerMs = Number(qs.get('reanswerMs')) || undefined;
// `?grantTtlMs=N`: how long the shop client's approval grants last (default 60 s), for the tests of a grant used past its time.
const grantTtlMs = Number(qs.get('grantTtlMs')) || undefined;
// `?broken=…`: clients that break the protocol on purpose (see the top of this file). Empty: none.
const broken = new Set((qs.get('broken') ?? '').split(',').filter(Boolean));
const activity: Array<ActivityEntry & { client: string }> = [];
function onActivity(client: string) {
  return (e: ActivityEntry) => {
    if (e.kind === 'received') return;
    activity.unshift({ ...e, client });
    if (activity.length > 40) activity.pop();
    renderActivity();
  };
}

// Approval dialog: one at a time, in order.
let approvalQueue: Promise<unknown> = Promise.resolve();
let currentAsk: { ask: ApprovalAsk; done: (ok: boolean) => void; client: OUIClient } | null = null;
function askUser(client: OUIClient) {
  return (ask: ApprovalAsk): Promise<boolean> => {
    const p = approvalQueue.then(
      () =>
        new Promise<boolean>((resolve) => {
          if (client.cancelledAsks.has(ask.approvalId)) return resolve(false);
          currentAsk = { ask, client, done: (ok) => ((currentAsk = null), renderApproval(), resolve(ok)) };
          renderApproval();
        }),
    );
    approvalQueue = p;
    return p;
  };
}

// 1. Socket.IO
const transportParam = qs.get('transport');
// `?transport=fetch`: long-polling over fetch() instead of XMLHttpRequest, then the upgrade; `polling` / `fetch-polling`: long-polling only (XMLHttpRequest / fetch), never upgraded.
const socket = io(
  '/oui',
  transportParam === 'websocket'
    ? { transports: ['websocket'] }
    : transportParam === 'fetch'
      ? { transports: [Fetch, EngineWebSocket] }
      : transportParam === 'polling'
        ? { transports: ['polling'] }
        : transportParam === 'fetch-polling'
          ? { transports: [Fetch] }
          : {},
);
let engineTransport = 'connecting';
socket.io.on('open', () => {
  const engine = socket.io.engine;
  engineTransport = engine.transport.name;
  engine.on('upgrade', () => {
    engineTransport = engine.transport.name;
    changed();
  });
  changed();
});
socket.on('disconnect', () => {
  engineTransport = 'disconnected';
  changed();
});
const shopClient = new OUIClient({
  name: 'socket.io',
  link: socketIoLink(socket),
  route: () => state.route,
  ...(reanswerMs ? { reanswerMs } : {}),
  ...(grantTtlMs ? { grantTtlMs } : {}),
  onApprovalAsk: (ask) => askUser(shopClient)(ask),
  onActivity: onActivity('socket.io'),
  onChange: () => changedSoon(),
  ...(broken.has('result-id') ? { faults: { resultRequestId: (id: string) => `${id}:result` } } : {}),
});

// 2. WebSocket JSON
const wsLink = wsJsonLink(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws-json`, { onState: () => changedSoon() });
const notifClient = new OUIClient({
  name: 'ws-json',
  link: wsLink,
  route: () => state.route,
  ...(reanswerMs ? { reanswerMs } : {}),
  onActivity: onActivity('ws-json'),
  onChange: () => changedSoon(),
});
wsLink.onMessage((type, payload) => {
  // the server's own extension event: a new message for the user
  if (type === 'x-notifications:push' && payload && typeof (payload as { text?: unknown }).text === 'string') notify((payload as { text: string }).text);
});

// 4. Direct call: create the transport, hand it to the DevTools hook at once, then use it.
const directTransport = createDirectTransport();
type DevtoolsHook = { attach(transport: unknown, options?: { label?: string }): unknown };
(window as unknown as { __OUI_DEVTOOLS_HOOK__?: DevtoolsHook }).__OUI_DEVTOOLS_HOOK__?.attach(directTransport, { label: 'in-page assistant' });
const hooked = !!(window as unknown as { __OUI_DEVTOOLS_HOOK__?: DevtoolsHook }).__OUI_DEVTOOLS_HOOK__;
const assistant = new InPageAssistant(directTransport);
const helpClient = new OUIClient({
  name: 'direct',
  link: directLink(directTransport),
  route: () => state.route,
  ...(reanswerMs ? { reanswerMs } : {}),
  onActivity: onActivity('direct'),
  onChange: () => changedSoon(),
});

function clients(): OUIClient[] {
  return [shopClient, notifClient, helpClient];
}

// ------------------------------------------------------ surface definitions

const shopNavDef: SurfaceDefinition = {
  surface: shopNavSurface,
  handlers: { navigate: (p: { route: Route }) => navigate(p.route) },
  observe: { route: () => state.route },
};

const catalogDef: SurfaceDefinition = {
  surface: catalogSurface,
  handlers: {
    search: (p) => runSearch(p),
    add_to_cart: (p: { productId: string; quantity?: number; options?: CartLine['options'] }) => addToCart(p.productId, p.quantity ?? 1, p.options),
  },
  observe: {
    results: () => ({ query: state.search.query, category: state.search.category, count: state.results.length, productIds: state.results }),
    inventory: () => ({ ...state.stock }),
  },
};

const cartDef: SurfaceDefinition = {
  surface: cartSurface,
  handlers: {
    remove_item: (p: { productId: string; quantity?: number }) => removeItem(p.productId, p.quantity),
    clear_cart: () => clearCart(),
  },
  observe: { items: () => cartItems(), total: () => cartTotals() },
  describeApproval: (actionId) => (actionId === 'clear_cart' ? `Empty the cart (${cartCount()} item${cartCount() === 1 ? '' : 's'})?` : `${actionId}?`),
};

const checkoutDef: SurfaceDefinition = {
  surface: checkoutSurface,
  handlers: { place_order: (p: PlaceOrderParams) => placeOrder(p) },
  observe: {
    summary: () => ({ itemCount: cartCount(), total: orderTotal('standard'), canPlace: state.cart.length > 0, lastOrderId: state.lastOrderId }),
  },
  describeApproval: (actionId, params) => {
    const p = params as PlaceOrderParams;
    return actionId === 'place_order' ? `Place order for ${money(orderTotal(p.shipping?.method ?? 'standard'))}?` : `${actionId}?`;
  },
};

const ordersDef: SurfaceDefinition = {
  surface: ordersSurface,
  handlers: {
    export_orders: (p, ctx) => exportOrders(p, (n) => ctx.progress(n, { exportId: state.exportJob?.exportId, progress: n })),
    cancel_order: (p: { orderId: string }) => cancelOrder(p.orderId),
  },
  observe: {
    orders: () => state.orders.map((o) => ({ id: o.id, total: o.total, status: o.status, items: o.items, createdAt: o.createdAt })),
    export_job: () => (state.exportJob ? { exportId: state.exportJob.exportId, status: state.exportJob.status, progress: state.exportJob.progress } : null),
  },
  describeApproval: (actionId, params) => (actionId === 'cancel_order' ? `Cancel order ${(params as { orderId: string }).orderId}?` : `${actionId}?`),
};

const notificationsDef: SurfaceDefinition = {
  surface: notificationsSurface,
  handlers: {
    list: (p: { unreadOnly?: boolean; limit?: number }) => ({
      notifications: state.notifications
        .filter((n) => !p.unreadOnly || !n.read)
        .slice(0, p.limit ?? 10)
        .map(({ id, text, read }) => ({ id, text, read })),
    }),
    mark_read: (p: { target: { ids: string[] } | { all: true } }) => {
      let marked = 0;
      for (const n of state.notifications) {
        if (!n.read && ('all' in p.target || p.target.ids.includes(n.id))) {
          n.read = true;
          marked++;
        }
      }
      changed();
      return { marked, unread: state.notifications.filter((n) => !n.read).length };
    },
  },
  observe: { unread: () => state.notifications.filter((n) => !n.read).length },
};

const TIPS: Record<string, [string, string]> = {
  general: ['Search by category or price to narrow the catalogue.', 'Every page mounts its own surfaces, so an agent sees only what the page offers.'],
  cart: ['You can remove single units from a cart line.', 'Emptying the cart needs your approval when an agent asks for it.'],
  checkout: ['Express shipping costs $12.00 and arrives next day.', 'An agent can place an order only with your approval of that exact order.'],
  orders: ['Exports run in the background and report progress.', 'Cancelling an order needs your approval.'],
  coupons: ['Try SAVE10, WELCOME15 or AGENT20 in the coupon widget.', 'Only one coupon applies at a time.'],
};
const ARTICLES: Record<string, { title: string; body: string }> = {
  shipping: { title: 'Shipping and delivery', body: 'Standard shipping is free and takes 3–5 days. Express costs $12.00 and arrives the next working day.' },
  returns: { title: 'Returns', body: 'Return anything within 30 days for a full refund. Cancelled orders are refunded at once.' },
  coupons: { title: 'Coupons', body: 'Apply one code per order in the coupon widget. The discount applies to the subtotal, not to shipping.' },
  agents: { title: 'Agents in this shop', body: 'An agent operates the shop through OUI surfaces. It may search and fill your cart; orders, cancellations and emptying the cart wait for your approval.' },
};

const helpDef: SurfaceDefinition = {
  surface: helpSurface,
  handlers: {
    show_tip: (p: { topic?: string; style?: string | number }) => {
      const topic = p.topic ?? 'general';
      const [short, more] = TIPS[topic]!;
      const tip = p.style === 'detailed' || (typeof p.style === 'number' && p.style > 1) ? `${short} ${more}` : short;
      state.tip = tip;
      changed();
      return { topic, tip };
    },
    open_article: (p: { articleId: string }) => {
      state.helpArticle = p.articleId;
      changed();
      return { articleId: p.articleId, title: ARTICLES[p.articleId]!.title };
    },
  },
  observe: { article: () => state.helpArticle },
};

// ------------------------------------------------------------------- view

const app = document.getElementById('app')!;
/** `?crossOrigin=1`: the widget comes from the other loopback name, a cross-origin iframe as real plugins are. */
function couponFrameSrc(): string {
  if (qs.get('crossOrigin') !== '1') return '/frame.html';
  const other = location.hostname === 'localhost' ? '127.0.0.1' : 'localhost';
  return `${location.protocol}//${other}:${location.port}/frame.html?parentOrigin=${encodeURIComponent(location.origin)}`;
}

app.innerHTML = `
<header class="topbar">
  <a class="brand" href="/" data-link><span class="logo">◆</span> OUI Demo Shop</a>
  <nav class="nav">
    <a href="/" data-link id="nav-shop">Shop</a>
    <a href="/cart" data-link id="nav-cart">Cart <span id="cart-count" class="badge">0</span></a>
    <a href="/checkout" data-link id="nav-checkout">Checkout</a>
    <a href="/orders" data-link id="nav-orders">Orders <span id="orders-count" class="badge muted">0</span></a>
  </nav>
  <div class="conn" id="connections">
    <span class="pill" id="status-socket" title="Socket.IO client, namespace /oui">socket.io</span>
    <span class="pill" id="status-ws" title="WebSocket JSON client, /ws-json">ws-json</span>
    <span class="pill" id="status-frame" title="iframe client over postMessage">iframe</span>
    <span class="pill" id="status-direct" title="in-process client (direct calls)">direct</span>
  </div>
</header>
<div class="layout">
  <main id="view" class="view"></main>
  <aside class="sidebar">
    <section class="card" id="assistant-card">
      <div class="card-head"><h3>In-page assistant</h3><span class="tag">direct</span></div>
      <p class="muted small">Runs in this page and drives the <code>help</code> surface through direct calls.</p>
      <div class="row">
        <button id="assistant-tip" class="btn small">Give me a tip</button>
        <button id="assistant-article" class="btn small ghost">Open shipping help</button>
      </div>
      <div id="assistant-output" class="note" aria-live="polite"></div>
      <div id="help-article" class="article" hidden></div>
    </section>
    <section class="card" id="coupon-card">
      <div class="card-head"><h3>Coupon</h3><span class="tag">iframe</span></div>
      <iframe id="coupon-frame" title="Coupon widget" src="${couponFrameSrc()}"></iframe>
      <div class="row"><button id="host-apply-coupon" class="btn small ghost">Host assistant: apply SAVE10</button></div>
      <div id="host-log" class="note small"></div>
    </section>
    <section class="card" id="notifications-card">
      <div class="card-head"><h3>Notifications <span id="notif-unread" class="badge">0</span></h3><span class="tag">ws-json</span></div>
      <ul id="notif-list" class="notif-list"></ul>
      <button id="notif-mark-all" class="btn small ghost">Mark all read</button>
    </section>
    <section class="card" id="activity-card">
      <div class="card-head"><h3>Agent activity</h3></div>
      <ol id="activity-log" class="activity"><li class="muted small">No requests yet.</li></ol>
    </section>
  </aside>
</div>
<div id="approval-root"></div>
`;

document.addEventListener('click', (ev) => {
  const a = (ev.target as HTMLElement).closest('a[data-link]') as HTMLAnchorElement | null;
  if (a && !ev.metaKey && !ev.ctrlKey) {
    ev.preventDefault();
    navigate(normalizeRoute(new URL(a.href).pathname));
  }
});

const view = $('#view')!;
let viewRoute: Route | null = null;

function productTile(p: Product): string {
  const left = (state.stock[p.id] ?? 0) - state.cart.filter((l) => l.productId === p.id).reduce((n, l) => n + l.quantity, 0);
  const initials = p.name.replace(/[^A-Za-z ]/g, '').split(' ').filter(Boolean).slice(0, 2).map((w) => w[0]).join('');
  return `<article class="product" data-product-id="${p.id}">
    <div class="thumb" style="background:linear-gradient(135deg,${p.colors[0]},${p.colors[1]})"><span>${esc(initials)}</span></div>
    <div class="product-body">
      <div class="product-top"><h4>${esc(p.name)}</h4><span class="price">${money(p.price)}</span></div>
      <p class="muted small">${esc(p.blurb)}</p>
      <div class="product-foot"><span class="chip">${p.category}</span><span class="muted small">${left} left</span>
      <button class="btn small add-btn" data-add="${p.id}" ${left <= 0 ? 'disabled' : ''}>Add to cart</button></div>
    </div></article>`;
}

function renderView(): void {
  const r = state.route;
  if (viewRoute !== r) {
    viewRoute = r;
    for (const id of ['shop', 'cart', 'checkout', 'orders']) $(`#nav-${id}`)!.classList.toggle('active', `/${id === 'shop' ? '' : id}` === r);
    if (r === '/') {
      view.innerHTML = `<div class="hero"><h1>Objects for operators</h1><p class="muted">Mugs, shirts, stickers and books. An agent may shop with you: everything it can do here is a declared OUI surface.</p></div>
      <form id="search-form" class="search">
        <input id="search-input" type="search" placeholder="Search products…" autocomplete="off">
        <select id="search-category"><option value="all">All categories</option><option>mugs</option><option>shirts</option><option>stickers</option><option>books</option></select>
        <button id="search-btn" class="btn">Search</button>
      </form>
      <p id="search-summary" class="muted small"></p>
      <div id="product-grid" class="grid"></div>`;
      $<HTMLFormElement>('#search-form')!.addEventListener('submit', (e) => {
        e.preventDefault();
        runSearch({ query: $<HTMLInputElement>('#search-input')!.value, category: $<HTMLSelectElement>('#search-category')!.value });
      });
    } else if (r === '/cart') {
      view.innerHTML = `<h2>Your cart</h2><div id="cart-lines"></div>
      <div class="totals card flat"><div><span>Subtotal</span><span id="cart-subtotal"></span></div><div><span>Discount <span id="cart-coupon" class="chip"></span></span><span id="cart-discount"></span></div><div class="grand"><span>Total</span><span id="cart-total"></span></div></div>
      <div class="row end"><button id="clear-cart-btn" class="btn ghost danger">Empty cart</button><a href="/checkout" data-link id="go-checkout" class="btn">Checkout →</a></div>`;
    } else if (r === '/checkout') {
      view.innerHTML = `<h2>Checkout</h2>
      <div class="two-col">
        <form id="checkout-form" class="card flat form">
          <label>Name<input id="ship-name" value="Ada Lovelace" required></label>
          <label>Street<input id="ship-street" value="12 Analytical Row" required></label>
          <div class="row"><label>City<input id="ship-city" value="London" required></label><label>Postcode<input id="ship-postcode" value="N1 9GU" required></label></div>
          <div class="row"><label>Country<select id="ship-country"><option>GB</option><option>US</option><option>DE</option><option>FR</option><option>NL</option></select></label>
          <label>Shipping<select id="ship-method"><option value="standard">Standard (free)</option><option value="express">Express ($12.00)</option></select></label></div>
          <label>Card (last 4)<input id="pay-last4" value="4242" pattern="[0-9]{4}"></label>
          <button id="place-order-btn" class="btn primary">Place order</button>
        </form>
        <div class="card flat" id="checkout-summary"></div>
      </div>
      <div id="order-confirmation" class="confirm" hidden></div>`;
      $<HTMLFormElement>('#checkout-form')!.addEventListener('submit', (e) => {
        e.preventDefault();
        try {
          placeOrder({
            shipping: {
              name: $<HTMLInputElement>('#ship-name')!.value,
              address: {
                street: $<HTMLInputElement>('#ship-street')!.value,
                city: $<HTMLInputElement>('#ship-city')!.value,
                postcode: $<HTMLInputElement>('#ship-postcode')!.value,
                country: $<HTMLSelectElement>('#ship-country')!.value,
              },
              method: $<HTMLSelectElement>('#ship-method')!.value as 'standard' | 'express',
            },
            payment: { type: 'card', last4: $<HTMLInputElement>('#pay-last4')!.value },
          });
        } catch (err) {
          alertBox((err as Error).message);
        }
      });
      $('#ship-method')!.addEventListener('change', () => updateView());
    } else {
      view.innerHTML = `<div class="row spread"><h2>Orders</h2><button id="export-btn" class="btn ghost">Export CSV</button></div>
      <div id="export-status" class="note" hidden></div>
      <ul id="order-list" class="orders"></ul>`;
    }
  }
  updateView();
}

view.addEventListener('click', (ev) => {
  const t = ev.target as HTMLElement;
  const add = t.closest('[data-add]') as HTMLElement | null;
  if (add) {
    try {
      addToCart(add.dataset.add!, 1);
    } catch (err) {
      alertBox((err as Error).message);
    }
    return;
  }
  const rm = t.closest('[data-remove]') as HTMLElement | null;
  if (rm) removeItem(rm.dataset.remove!);
  else if (t.id === 'clear-cart-btn') clearCart();
  else if (t.id === 'export-btn') void exportOrders({ format: 'csv' }, () => {});
  else {
    const c = t.closest('[data-cancel]') as HTMLElement | null;
    if (c) cancelOrder(c.dataset.cancel!);
  }
});

function alertBox(msg: string) {
  const el = document.createElement('div');
  el.className = 'toast';
  el.textContent = msg;
  document.body.appendChild(el);
  setTimeout(() => el.remove(), 3000);
}

function updateView(): void {
  const r = state.route;
  if (r === '/') {
    const input = $<HTMLInputElement>('#search-input')!;
    if (document.activeElement !== input) input.value = state.search.query;
    $<HTMLSelectElement>('#search-category')!.value = state.search.category;
    const items = state.results.map((id) => productById(id)!);
    $('#search-summary')!.textContent = `${items.length} product${items.length === 1 ? '' : 's'}${state.search.query ? ` for “${state.search.query}”` : ''}${state.search.category !== 'all' ? ` in ${state.search.category}` : ''}`;
    $('#product-grid')!.innerHTML = items.map(productTile).join('') || '<p class="muted">Nothing matches.</p>';
  } else if (r === '/cart') {
    const t = cartTotals();
    $('#cart-lines')!.innerHTML = state.cart.length
      ? `<table class="lines"><thead><tr><th>Item</th><th>Qty</th><th>Price</th><th></th></tr></thead><tbody>${cartItems()
          .map(
            (l) => `<tr class="cart-line" data-product-id="${l.productId}"><td>${esc(l.name)}${l.options ? ` <span class="muted small">${esc(Object.values(l.options).join(' / '))}</span>` : ''}</td><td>${l.quantity}</td><td>${money(l.quantity * l.unitPrice)}</td><td><button class="btn tiny ghost" data-remove="${l.productId}">Remove</button></td></tr>`,
          )
          .join('')}</tbody></table>`
      : '<p class="empty muted" id="cart-empty">Your cart is empty. <a href="/" data-link>Browse products</a></p>';
    $('#cart-subtotal')!.textContent = money(t.subtotal);
    $('#cart-discount')!.textContent = `−${money(t.discount)}`;
    $('#cart-coupon')!.textContent = t.coupon ?? 'none';
    $('#cart-total')!.textContent = money(t.total);
    $<HTMLButtonElement>('#clear-cart-btn')!.disabled = state.cart.length === 0;
  } else if (r === '/checkout') {
    const method = ($<HTMLSelectElement>('#ship-method')?.value ?? 'standard') as 'standard' | 'express';
    const t = cartTotals();
    $('#checkout-summary')!.innerHTML = `<h4>Summary</h4>${cartItems()
      .map((l) => `<div class="line"><span>${l.quantity} × ${esc(l.name)}</span><span>${money(l.quantity * l.unitPrice)}</span></div>`)
      .join('') || '<p class="muted small">The cart is empty.</p>'}
      <div class="line"><span>Discount${t.coupon ? ` (${t.coupon})` : ''}</span><span>−${money(t.discount)}</span></div>
      <div class="line"><span>Shipping</span><span>${money(SHIPPING_COST[method])}</span></div>
      <div class="line grand"><span>Total</span><span id="checkout-total">${money(orderTotal(method))}</span></div>`;
    $<HTMLButtonElement>('#place-order-btn')!.disabled = state.cart.length === 0;
    const conf = $('#order-confirmation')!;
    const last = state.orders.find((o) => o.id === state.lastOrderId);
    conf.hidden = !last;
    if (last) conf.innerHTML = `✓ Order <strong id="last-order-id">${last.id}</strong> placed: ${money(last.total)}. <a href="/orders" data-link>See your orders</a>`;
  } else {
    $('#order-list')!.innerHTML =
      state.orders
        .map(
          (o) => `<li class="order ${o.status}" data-order-id="${o.id}"><div><strong>${o.id}</strong> <span class="chip ${o.status}">${o.status}</span><div class="muted small">${o.items} item${o.items === 1 ? '' : 's'} · ${o.shipping} · ${esc(o.payment)} · ${new Date(o.createdAt).toLocaleTimeString()}</div></div>
          <div class="row"><span class="price">${money(o.total)}</span>${o.status === 'placed' ? `<button class="btn tiny ghost danger" data-cancel="${o.id}">Cancel</button>` : ''}</div></li>`,
        )
        .join('') || '<li class="muted" id="orders-empty">No orders yet.</li>';
    const job = state.exportJob;
    const st = $('#export-status')!;
    st.hidden = !job;
    if (job) st.innerHTML = `Export <strong>${job.exportId}</strong> (${job.format}): ${job.status === 'done' ? `done, ${job.rows} row${job.rows === 1 ? '' : 's'}` : `${job.progress}%`}<div class="progress"><div style="width:${job.progress}%"></div></div>`;
  }
}

function renderChrome(): void {
  $('#cart-count')!.textContent = String(cartCount());
  $('#orders-count')!.textContent = String(state.orders.length);
  const pill = (id: string, on: boolean, text: string) => {
    const el = $(`#${id}`)!;
    el.classList.toggle('on', on);
    el.textContent = text;
    el.dataset.state = on ? 'connected' : 'disconnected';
  };
  pill('status-socket', socket.connected && shopClient.mounted().length > 0, `socket.io · ${socket.connected ? engineTransport : 'offline'}`);
  pill('status-ws', wsLink.connected, `ws-json · ${wsLink.state}`);
  pill('status-frame', frameHost.connected, `iframe · ${frameHost.surfaces.size ? 'coupon' : 'waiting'}`);
  pill('status-direct', directTransport.state === 'connected', `direct${hooked ? ' · hooked' : ''}`);
  // notifications
  const unread = state.notifications.filter((n) => !n.read).length;
  $('#notif-unread')!.textContent = String(unread);
  $('#notif-list')!.innerHTML = state.notifications
    .slice(0, 5)
    .map((n) => `<li class="${n.read ? 'read' : 'unread'}" data-notification-id="${n.id}">${esc(n.text)}</li>`)
    .join('');
  // assistant
  $('#assistant-output')!.textContent = state.tip ?? '';
  const art = $('#help-article')!;
  art.hidden = !state.helpArticle;
  if (state.helpArticle) {
    const a = ARTICLES[state.helpArticle]!;
    art.innerHTML = `<h4>${esc(a.title)}</h4><p>${esc(a.body)}</p>`;
    art.dataset.articleId = state.helpArticle;
  }
}

function renderActivity(): void {
  const el = $('#activity-log');
  if (!el) return;
  el.innerHTML = activity
    .slice(0, 10)
    .map((e) => {
      const ok = e.kind === 'result' ? (e.ok ? '<span class="ok">✓</span>' : `<span class="bad">✗ ${esc(e.code)}</span>`) : `<span class="muted">${esc(e.kind)}</span>`;
      return `<li><span class="chip">${esc(e.client)}</span> <code>${esc(e.surfaceId)}/${esc(e.actionId)}</code> ${ok}</li>`;
    })
    .join('') || '<li class="muted small">No requests yet.</li>';
}

function renderApproval(): void {
  const root = $('#approval-root')!;
  if (!currentAsk) {
    root.innerHTML = '';
    return;
  }
  const { ask } = currentAsk;
  root.innerHTML = `<div class="backdrop"><div id="approval-dialog" class="dialog" role="dialog" aria-modal="true" aria-labelledby="approval-title" data-approval-id="${esc(ask.approvalId)}">
    <div class="dialog-kicker">An agent asks for your approval</div>
    <h2 id="approval-title">Approve: ${esc(ask.description)}</h2>
    <p class="muted small"><code>${esc(ask.surfaceId)}/${esc(ask.actionId)}</code> · effect <strong>${esc(ask.action.effect ?? 'write')}</strong>${ask.action.confirm ? ' · destructive' : ''}${ask.title ? ` · the agent calls it “${esc(ask.title)}”` : ''}</p>
    <pre class="params">${esc(JSON.stringify(ask.params, null, 2))}</pre>
    <p class="muted small">Approving lets the agent run this exact request once, within 60 seconds.</p>
    <div class="row end"><button id="deny-btn" class="btn ghost">Deny</button><button id="approve-btn" class="btn primary">Approve</button></div>
  </div></div>`;
  $('#approve-btn')!.addEventListener('click', () => currentAsk?.done(true));
  $('#deny-btn')!.addEventListener('click', () => currentAsk?.done(false));
  $<HTMLButtonElement>('#approve-btn')!.focus();
}

let changeQueued = false;
function changedSoon(): void {
  if (changeQueued) return;
  changeQueued = true;
  queueMicrotask(() => {
    changeQueued = false;
    changed();
  });
}
function changed(): void {
  if (currentAsk && currentAsk.client.cancelledAsks.has(currentAsk.ask.approvalId)) currentAsk.done(false);
  if (viewRoute === state.route) updateView();
  renderChrome();
  for (const c of clients()) c.notify();
}

// ------------------------------------------------------------------ iframe

const frame = $<HTMLIFrameElement>('#coupon-frame')!;
const frameOrigin = new URL(frame.src, location.href).origin;
const frameHost: PostMessageHost = new PostMessageHost(frame, frameOrigin);
frameHost.onChange(() => {
  const c = frameHost.observations['coupon-widget']?.coupon?.value as { code: string; percentOff: number } | null | undefined;
  const next = c && typeof c.code === 'string' && typeof c.percentOff === 'number' && COUPONS[c.code] === c.percentOff ? c : null;
  if (JSON.stringify(next) !== JSON.stringify(state.coupon)) {
    state.coupon = next;
    changed();
  } else renderChrome();
});
$('#host-apply-coupon')!.addEventListener('click', async () => {
  const r = await frameHost.request('coupon-widget', 'apply_coupon', { code: 'SAVE10' });
  $('#host-log')!.textContent = r.success ? `Applied ${(r.data as { code: string }).code}: ${(r.data as { percentOff: number }).percentOff}% off.` : `Failed: ${r.error?.code} ${r.error?.message}`;
});

// --------------------------------------------------------------- assistant

$('#assistant-tip')!.addEventListener('click', async () => {
  const topic = state.route === '/' ? 'general' : state.route.slice(1);
  const r = await assistant.request('help', 'show_tip', { topic, style: 'detailed' });
  if (!r.success) $('#assistant-output')!.textContent = `${r.error?.code}: ${r.error?.message}`;
});
$('#assistant-article')!.addEventListener('click', () => void assistant.request('help', 'open_article', { articleId: 'shipping' }));
$('#notif-mark-all')!.addEventListener('click', () => {
  for (const n of state.notifications) n.read = true;
  changed();
});

// ------------------------------------------------------------------- start

if (location.pathname !== state.route) history.replaceState(null, '', state.route + location.search);
renderView();
for (const def of [shopNavDef, catalogDef, cartDef, checkoutDef, ordersDef]) shopClient.define(def);
// `?broken=surface-id`: the display name used as the id, which §3.2 does not allow.
notifClient.define(broken.has('surface-id') ? { ...notificationsDef, surface: { ...notificationsDef.surface, id: 'Notifications' } } : notificationsDef);
helpClient.define(helpDef);
changed();

// ------------------------------------------------------- test helpers (read-only)

const surfaceIds = (list: OUISurface[]) => list.map((s) => s.id);
const demo = {
  state: () =>
    JSON.parse(
      JSON.stringify({
        route: state.route,
        cart: cartItems(),
        cartCount: cartCount(),
        totals: cartTotals(),
        orders: state.orders,
        lastOrderId: state.lastOrderId,
        coupon: state.coupon,
        unread: state.notifications.filter((n) => !n.read).length,
        notifications: state.notifications,
        helpArticle: state.helpArticle,
        tip: state.tip,
        exportJob: state.exportJob,
        approvalOpen: currentAsk ? currentAsk.ask.approvalId : null,
        clients: {
          socket: { connected: socket.connected, transport: socket.connected ? engineTransport : 'disconnected', id: socket.id ?? null, surfaces: surfaceIds(shopClient.mounted()), stats: shopClient.stats },
          ws: { connected: wsLink.connected, state: wsLink.state, surfaces: surfaceIds(notifClient.mounted()), stats: notifClient.stats },
          frame: { connected: frameHost.connected, surfaces: [...frameHost.surfaces.keys()], origin: frameOrigin },
          direct: { connected: directTransport.state === 'connected', hooked, surfaces: surfaceIds(helpClient.mounted()), runtimeSurfaces: [...assistant.surfaces.keys()], stats: helpClient.stats },
        },
      }),
    ),
  snapshot: (client: 'socket' | 'ws' | 'direct') => JSON.parse(JSON.stringify({ socket: shopClient, ws: notifClient, direct: helpClient }[client].snapshot())),
  activity: () => JSON.parse(JSON.stringify(activity)),
  /** The in-page assistant (direct transport): run a help action. */
  assistant: (actionId: string, params: Record<string, unknown>): Promise<OUIActionResult> => assistant.request('help', actionId, params),
  /** The host page as the iframe's runtime: run a coupon-widget action. */
  hostFrame: (actionId: string, params: Record<string, unknown>): Promise<OUIActionResult> => frameHost.request('coupon-widget', actionId, params),
  articles: HELP_ARTICLES,
};
Object.defineProperty(window, '__demo', { value: Object.freeze(demo), configurable: false, writable: false });
