/**
 * The demo's surface manifests (schema only; handlers live with the app).
 *
 * Socket.IO client (`/oui`): shop-nav, catalog, cart, checkout, orders.
 * WebSocket JSON client (`/ws-json`): notifications.
 * iframe client (postMessage): coupon-widget.
 * Direct (in-process) client: help.
 */
import type { JSONSchema, OUISurface } from '../../../src/protocol/index.ts';
import { PRODUCT_IDS } from './shop-data.ts';

export const ROUTES = ['/', '/cart', '/checkout', '/orders'] as const;
export type Route = (typeof ROUTES)[number];

const ALWAYS = ['/**'];

const productSchema: JSONSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    category: { type: 'string', enum: ['mugs', 'shirts', 'stickers', 'books'] },
    price: { type: 'number', minimum: 0 },
    stock: { type: 'integer', minimum: 0 },
  },
  required: ['id', 'name', 'category', 'price'],
};

const cartLineSchema: JSONSchema = {
  type: 'object',
  properties: {
    productId: { type: 'string' },
    name: { type: 'string' },
    quantity: { type: 'integer', minimum: 1 },
    unitPrice: { type: 'number' },
    options: { type: 'object', properties: { size: { type: 'string' }, color: { type: 'string' } } },
  },
  required: ['productId', 'quantity', 'unitPrice'],
};

const totalSchema: JSONSchema = {
  type: 'object',
  properties: {
    subtotal: { type: 'number' },
    discount: { type: 'number' },
    total: { type: 'number' },
    currency: { type: 'string', const: 'USD' },
    coupon: { type: ['string', 'null'] },
  },
  required: ['subtotal', 'discount', 'total', 'currency'],
};

export const shopNavSurface: OUISurface = {
  id: 'shop-nav',
  name: 'Shop navigation',
  description: 'Moves between the pages of the OUI Demo Shop: products, cart, checkout and orders. Each page mounts its own surfaces.',
  version: '1.0.0',
  activation: { routes: ALWAYS },
  actions: [
    {
      id: 'navigate',
      title: 'Go to page',
      description: 'Open a page of the shop. The result lists the surfaces the new page mounted.',
      effect: 'navigate',
      input: {
        type: 'object',
        properties: {
          route: { type: 'string', enum: [...ROUTES], description: 'The page to open' },
        },
        required: ['route'],
        additionalProperties: false,
      },
      output: { type: 'object', properties: { route: { type: 'string' }, previous: { type: 'string' } }, required: ['route'] },
      estimatedDuration: 'instant',
    },
  ],
  observations: [
    {
      id: 'route',
      description: 'The page open now',
      schema: { type: 'string', enum: [...ROUTES] },
      updateFrequency: 'on-change',
    },
  ],
};

export const catalogSurface: OUISurface = {
  id: 'catalog',
  name: 'Product catalogue',
  description: 'Search the shop’s products (mugs, shirts, stickers, books) and add them to the cart.',
  version: '1.2.0',
  activation: { routes: ['/'] },
  actions: [
    {
      id: 'search',
      title: 'Search products',
      description: 'Find products by text, category and price. Shows the results on the page.',
      effect: 'view',
      input: {
        type: 'object',
        properties: {
          query: { type: 'string', maxLength: 100, description: 'Words to look for in the name and description; empty for all', default: '' },
          category: { type: 'string', enum: ['all', 'mugs', 'shirts', 'stickers', 'books'], default: 'all', description: 'Only this category' },
          maxPrice: { type: 'number', minimum: 0, maximum: 10000, description: 'Highest unit price in USD' },
          sort: { type: 'string', enum: ['relevance', 'price_asc', 'price_desc'], default: 'relevance' },
          limit: { type: 'integer', minimum: 1, maximum: 50, default: 20 },
        },
        required: ['query'],
        additionalProperties: false,
      },
      output: {
        type: 'object',
        properties: { results: { type: 'array', items: productSchema }, total: { type: 'integer', minimum: 0 } },
        required: ['results', 'total'],
      },
      estimatedDuration: 'instant',
      tags: ['read-only'],
    },
    {
      id: 'add_to_cart',
      title: 'Add to cart',
      description: 'Put a product in the cart, optionally with a size and colour.',
      effect: 'edit',
      input: {
        type: 'object',
        properties: {
          productId: { type: 'string', enum: PRODUCT_IDS, description: 'Which product' },
          quantity: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
          options: {
            type: 'object',
            description: 'Variant of the product, where it has one',
            properties: {
              size: { type: 'string', enum: ['S', 'M', 'L', 'XL'] },
              color: { type: 'string', minLength: 1, maxLength: 20 },
            },
            additionalProperties: false,
          },
        },
        required: ['productId'],
        additionalProperties: false,
      },
      output: {
        type: 'object',
        properties: { cartCount: { type: 'integer' }, line: cartLineSchema, total: { type: 'number' } },
        required: ['cartCount', 'total'],
      },
      preconditions: 'The product is in stock.',
    },
  ],
  observations: [
    {
      id: 'results',
      description: 'The search shown on the page and the ids of the products it lists',
      schema: {
        type: 'object',
        properties: {
          query: { type: 'string' },
          category: { type: 'string' },
          count: { type: 'integer' },
          productIds: { type: 'array', items: { type: 'string' } },
        },
        required: ['query', 'count', 'productIds'],
      },
      updateFrequency: 'on-change',
    },
    {
      id: 'inventory',
      description: 'Stock level per product (pull: ask with observation:request)',
      schema: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } },
      updateFrequency: 'polling',
    },
  ],
};

export const cartSurface: OUISurface = {
  id: 'cart',
  name: 'Shopping cart',
  description: 'The items in the cart and their total. Remove items or empty the cart.',
  version: '1.1.0',
  activation: { routes: ALWAYS },
  actions: [
    {
      id: 'remove_item',
      title: 'Remove from cart',
      description: 'Take a product out of the cart, all of it or a number of units.',
      effect: 'edit',
      input: {
        type: 'object',
        properties: {
          productId: { type: 'string', enum: PRODUCT_IDS },
          quantity: { type: 'integer', minimum: 1, maximum: 10, description: 'Units to remove; all when left out' },
        },
        required: ['productId'],
        additionalProperties: false,
      },
      output: { type: 'object', properties: { removed: { type: 'integer' }, cartCount: { type: 'integer' } }, required: ['removed', 'cartCount'] },
    },
    {
      id: 'clear_cart',
      title: 'Empty the cart',
      description: 'Remove every item from the cart. Destructive: needs the user’s approval.',
      effect: 'edit',
      confirm: true,
      input: {
        type: 'object',
        properties: {
          reason: { type: 'string', enum: ['user_request', 'start_over', 'other'], default: 'user_request' },
        },
        additionalProperties: false,
      },
      output: { type: 'object', properties: { removedLines: { type: 'integer' } }, required: ['removedLines'] },
      tags: ['destructive'],
    },
  ],
  observations: [
    {
      id: 'items',
      description: 'The lines in the cart',
      schema: { type: 'array', items: cartLineSchema },
      updateFrequency: 'on-change',
    },
    { id: 'total', description: 'Subtotal, coupon discount and total in USD', schema: totalSchema, updateFrequency: 'on-change' },
  ],
};

const addressSchema: JSONSchema = {
  type: 'object',
  properties: {
    street: { type: 'string', minLength: 1, maxLength: 120 },
    city: { type: 'string', minLength: 1, maxLength: 80 },
    postcode: { type: 'string', pattern: '^[A-Za-z0-9 -]{3,10}$' },
    country: { type: 'string', enum: ['US', 'GB', 'DE', 'FR', 'NL'] },
  },
  required: ['street', 'city', 'postcode', 'country'],
  additionalProperties: false,
};

export const checkoutSurface: OUISurface = {
  id: 'checkout',
  name: 'Checkout',
  description: 'Place an order for the items in the cart. Placing an order is a transaction: it runs only on the user’s approval of the exact order.',
  version: '2.0.0',
  activation: { routes: ['/checkout'] },
  actions: [
    {
      id: 'place_order',
      title: 'Place order',
      description: 'Buy everything in the cart, shipped to the given address and paid with the given method.',
      effect: 'transaction',
      input: {
        type: 'object',
        properties: {
          shipping: {
            type: 'object',
            properties: {
              name: { type: 'string', minLength: 1, maxLength: 80 },
              address: addressSchema,
              method: { type: 'string', enum: ['standard', 'express'], default: 'standard' },
            },
            required: ['name', 'address'],
            additionalProperties: false,
          },
          payment: {
            description: 'A card on file (last four digits) or an invoice',
            oneOf: [
              {
                type: 'object',
                properties: { type: { const: 'card' }, last4: { type: 'string', pattern: '^[0-9]{4}$' } },
                required: ['type', 'last4'],
                additionalProperties: false,
              },
              {
                type: 'object',
                properties: { type: { const: 'invoice' }, poNumber: { type: 'string', minLength: 3, maxLength: 20 } },
                required: ['type'],
                additionalProperties: false,
              },
            ],
          },
          note: { type: 'string', maxLength: 200 },
        },
        required: ['shipping', 'payment'],
        additionalProperties: false,
      },
      output: {
        type: 'object',
        properties: { orderId: { type: 'string' }, total: { type: 'number' }, status: { type: 'string', enum: ['placed'] } },
        required: ['orderId', 'total', 'status'],
      },
      preconditions: 'The cart is not empty.',
      estimatedDuration: '< 1s',
    },
  ],
  observations: [
    {
      id: 'summary',
      description: 'What an order placed now would cost',
      schema: {
        type: 'object',
        properties: { itemCount: { type: 'integer' }, total: { type: 'number' }, canPlace: { type: 'boolean' }, lastOrderId: { type: ['string', 'null'] } },
        required: ['itemCount', 'total', 'canPlace'],
      },
      updateFrequency: 'on-change',
    },
  ],
};

const orderSchema: JSONSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    total: { type: 'number' },
    status: { type: 'string', enum: ['placed', 'cancelled'] },
    items: { type: 'integer' },
    createdAt: { type: 'number' },
  },
  required: ['id', 'total', 'status'],
};

export const ordersSurface: OUISurface = {
  id: 'orders',
  name: 'Orders',
  description: 'The user’s orders: export them to a file (a background job) or cancel one.',
  version: '1.0.0',
  activation: { routes: ['/orders', '/orders/**'] },
  actions: [
    {
      id: 'export_orders',
      title: 'Export orders',
      description: 'Start a job that writes the orders to a CSV or JSON file. Answers at once, reports progress, then the file.',
      effect: 'job',
      async: true,
      input: {
        type: 'object',
        properties: {
          format: { type: 'string', enum: ['csv', 'json'], default: 'csv' },
          range: {
            description: 'Which orders: a named range or explicit dates',
            anyOf: [
              { type: 'string', enum: ['all', 'last_30_days'] },
              {
                type: 'object',
                properties: { from: { type: 'string', format: 'date' }, to: { type: 'string', format: 'date' } },
                required: ['from', 'to'],
                additionalProperties: false,
              },
            ],
            default: 'all',
          },
          columns: {
            type: 'array',
            items: { type: 'string', enum: ['id', 'total', 'status', 'items', 'createdAt'] },
            description: 'Columns to include; all when left out',
          },
        },
        additionalProperties: false,
      },
      output: {
        type: 'object',
        properties: { exportId: { type: 'string' }, format: { type: 'string' }, rows: { type: 'integer' }, bytes: { type: 'integer' }, content: { type: 'string' } },
        required: ['exportId', 'format', 'rows'],
      },
      estimatedDuration: '1-5s',
    },
    {
      id: 'cancel_order',
      title: 'Cancel order',
      description: 'Cancel a placed order. Destructive: needs the user’s approval.',
      effect: 'mutate',
      confirm: true,
      input: {
        type: 'object',
        properties: {
          orderId: { type: 'string', pattern: '^ORD-[0-9]+$' },
          reason: { type: 'string', enum: ['changed_mind', 'wrong_item', 'too_slow', 'other'], default: 'changed_mind' },
        },
        required: ['orderId'],
        additionalProperties: false,
      },
      output: { type: 'object', properties: { orderId: { type: 'string' }, status: { type: 'string' } }, required: ['orderId', 'status'] },
      tags: ['destructive'],
    },
  ],
  observations: [
    { id: 'orders', description: 'The user’s orders, newest first', schema: { type: 'array', items: orderSchema }, updateFrequency: 'on-change' },
    {
      id: 'export_job',
      description: 'The export job running or finished last',
      schema: {
        type: ['object', 'null'],
        properties: { exportId: { type: 'string' }, status: { type: 'string', enum: ['running', 'done'] }, progress: { type: 'integer', minimum: 0, maximum: 100 } },
      },
      updateFrequency: 'on-change',
    },
  ],
};

export const notificationsSurface: OUISurface = {
  id: 'notifications',
  name: 'Notifications',
  description: 'The shop’s messages to the user: list them and mark them read.',
  version: '1.0.0',
  activation: { routes: ALWAYS },
  actions: [
    {
      id: 'list',
      title: 'List notifications',
      description: 'Return the notifications, newest first.',
      effect: 'view',
      input: {
        type: 'object',
        properties: {
          unreadOnly: { type: 'boolean', default: false },
          limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
        },
        additionalProperties: false,
      },
      output: {
        type: 'object',
        properties: {
          notifications: {
            type: 'array',
            items: { type: 'object', properties: { id: { type: 'string' }, text: { type: 'string' }, read: { type: 'boolean' } }, required: ['id', 'text', 'read'] },
          },
        },
        required: ['notifications'],
      },
    },
    {
      id: 'mark_read',
      title: 'Mark as read',
      description: 'Mark some notifications, or all of them, as read.',
      effect: 'edit',
      input: {
        type: 'object',
        properties: {
          target: {
            oneOf: [
              { type: 'object', properties: { ids: { type: 'array', items: { type: 'string', pattern: '^n[0-9]+$' } } }, required: ['ids'], additionalProperties: false },
              { type: 'object', properties: { all: { const: true } }, required: ['all'], additionalProperties: false },
            ],
          },
        },
        required: ['target'],
        additionalProperties: false,
      },
      output: { type: 'object', properties: { marked: { type: 'integer' }, unread: { type: 'integer' } }, required: ['marked', 'unread'] },
    },
  ],
  observations: [{ id: 'unread', description: 'How many notifications are unread', schema: { type: 'integer', minimum: 0 }, updateFrequency: 'on-change' }],
};

export const couponSurface: OUISurface = {
  id: 'coupon-widget',
  name: 'Coupon widget',
  description: 'An embedded widget that applies a discount code to the cart.',
  version: '0.3.0',
  activation: { routes: ALWAYS },
  actions: [
    {
      id: 'apply_coupon',
      title: 'Apply coupon',
      description: 'Apply a discount code (upper-case letters and digits).',
      effect: 'edit',
      input: {
        type: 'object',
        properties: { code: { type: 'string', pattern: '^[A-Z0-9]{4,12}$', description: 'The code, e.g. SAVE10' } },
        required: ['code'],
        additionalProperties: false,
      },
      output: { type: 'object', properties: { code: { type: 'string' }, percentOff: { type: 'integer', minimum: 1, maximum: 100 } }, required: ['code', 'percentOff'] },
    },
    {
      id: 'remove_coupon',
      title: 'Remove coupon',
      description: 'Take the applied discount code off.',
      effect: 'edit',
      input: { type: 'object', properties: {}, additionalProperties: false },
      output: { type: 'object', properties: { removed: { type: ['string', 'null'] } }, required: ['removed'] },
    },
  ],
  observations: [
    {
      id: 'coupon',
      description: 'The code applied now, if any',
      schema: {
        type: ['object', 'null'],
        properties: { code: { type: 'string' }, percentOff: { type: 'integer' } },
        required: ['code', 'percentOff'],
      },
      updateFrequency: 'on-change',
    },
  ],
};

export const HELP_TOPICS = ['general', 'cart', 'checkout', 'orders', 'coupons'] as const;
export const HELP_ARTICLES = ['shipping', 'returns', 'coupons', 'agents'] as const;

export const helpSurface: OUISurface = {
  id: 'help',
  name: 'Help',
  description: 'Tips and help articles for the shop, shown in the page’s help panel.',
  version: '1.0.0',
  activation: { routes: ALWAYS },
  actions: [
    {
      id: 'show_tip',
      title: 'Show a tip',
      description: 'Show a short tip about a part of the shop.',
      effect: 'view',
      input: {
        type: 'object',
        properties: {
          topic: { type: 'string', enum: [...HELP_TOPICS], default: 'general' },
          style: { anyOf: [{ type: 'string', enum: ['short', 'detailed'] }, { type: 'integer', minimum: 1, maximum: 3, description: 'Number of sentences' }], default: 'short' },
        },
        additionalProperties: false,
      },
      output: { type: 'object', properties: { topic: { type: 'string' }, tip: { type: 'string' } }, required: ['topic', 'tip'] },
    },
    {
      id: 'open_article',
      title: 'Open help article',
      description: 'Open a help article in the help panel.',
      effect: 'navigate',
      input: {
        type: 'object',
        properties: { articleId: { type: 'string', enum: [...HELP_ARTICLES] } },
        required: ['articleId'],
        additionalProperties: false,
      },
      output: { type: 'object', properties: { articleId: { type: 'string' }, title: { type: 'string' } }, required: ['articleId', 'title'] },
    },
  ],
  observations: [{ id: 'article', description: 'The help article open now', schema: { type: ['string', 'null'] }, updateFrequency: 'on-change' }],
};
