/** The demo shop's catalogue and pricing rules (plain data, shared by the page and tests). */

export type Category = 'mugs' | 'shirts' | 'stickers' | 'books';

export interface Product {
  id: string;
  name: string;
  category: Category;
  price: number;
  stock: number;
  blurb: string;
  /** Two colours for the product tile. */
  colors: [string, string];
}

export const PRODUCTS: readonly Product[] = [
  { id: 'mug-classic', name: 'Classic Mug', category: 'mugs', price: 12.5, stock: 24, blurb: 'Stoneware, 350 ml, dishwasher safe.', colors: ['#ffb199', '#ff0844'] },
  { id: 'mug-travel', name: 'Travel Mug', category: 'mugs', price: 22, stock: 9, blurb: 'Keeps coffee hot for six hours.', colors: ['#84fab0', '#0ba360'] },
  { id: 'shirt-logo', name: 'Logo T-Shirt', category: 'shirts', price: 25, stock: 40, blurb: 'Organic cotton, relaxed fit.', colors: ['#a1c4fd', '#3b5bdb'] },
  { id: 'shirt-agent', name: '"I Am An Agent" Tee', category: 'shirts', price: 28, stock: 15, blurb: 'For the operator in your life.', colors: ['#d4a5ff', '#7048e8'] },
  { id: 'sticker-pack', name: 'Sticker Pack', category: 'stickers', price: 6, stock: 120, blurb: 'Twelve vinyl stickers, weatherproof.', colors: ['#fddb92', '#f08c00'] },
  { id: 'sticker-holo', name: 'Holographic Sticker', category: 'stickers', price: 4.5, stock: 60, blurb: 'Shimmers in every light.', colors: ['#96fbc4', '#0c8599'] },
  { id: 'book-surfaces', name: 'Designing Surfaces', category: 'books', price: 39, stock: 7, blurb: 'A field guide to agent-operable UIs.', colors: ['#ffd3a5', '#e8590c'] },
  { id: 'book-protocols', name: 'Protocols in Practice', category: 'books', price: 44, stock: 3, blurb: 'Events, acknowledgments and the rest.', colors: ['#c2e9fb', '#1c7ed6'] },
];

export const PRODUCT_IDS = PRODUCTS.map((p) => p.id);

export function productById(id: string): Product | undefined {
  return PRODUCTS.find((p) => p.id === id);
}

export const COUPONS: Readonly<Record<string, number>> = { SAVE10: 10, WELCOME15: 15, AGENT20: 20 };

export const SHIPPING_COST: Readonly<Record<'standard' | 'express', number>> = { standard: 0, express: 12 };

export const round2 = (n: number) => Math.round(n * 100) / 100;

export const money = (n: number) => `$${n.toFixed(2)}`;
