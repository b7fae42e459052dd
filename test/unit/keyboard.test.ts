/**
 * The panel's keyboard arithmetic (panel/keyboard.ts): which row a key
 * selects in a list, which tab a key activates in a tab strip, and which
 * keydowns are the find shortcut. The e2e test (test/e2e/keyboard.test.ts)
 * drives the same keys in the panel.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isFindKey, listIndexAfter, pageRows, tabIndexAfter } from '../../panel/keyboard.ts';

const LIST_KEYS = ['ArrowDown', 'ArrowUp', 'Home', 'End', 'PageDown', 'PageUp'];

describe('list keys', () => {
  test('with nothing selected, every key but Home selects the newest row (the last); Home the oldest', () => {
    for (const none of [-1, 10, 99]) {
      assert.equal(listIndexAfter('ArrowDown', none, 10, 5), 9);
      assert.equal(listIndexAfter('ArrowUp', none, 10, 5), 9);
      assert.equal(listIndexAfter('End', none, 10, 5), 9);
      assert.equal(listIndexAfter('PageDown', none, 10, 5), 9);
      assert.equal(listIndexAfter('PageUp', none, 10, 5), 9);
      assert.equal(listIndexAfter('Home', none, 10, 5), 0);
    }
  });

  test('from a selection: arrows by one, pages by a page, Home and End to the ends, clamped', () => {
    assert.equal(listIndexAfter('ArrowDown', 3, 10, 5), 4);
    assert.equal(listIndexAfter('ArrowUp', 3, 10, 5), 2);
    assert.equal(listIndexAfter('ArrowDown', 9, 10, 5), 9);
    assert.equal(listIndexAfter('ArrowUp', 0, 10, 5), 0);
    assert.equal(listIndexAfter('PageDown', 3, 10, 5), 8);
    assert.equal(listIndexAfter('PageDown', 6, 10, 5), 9);
    assert.equal(listIndexAfter('PageUp', 6, 10, 5), 1);
    assert.equal(listIndexAfter('PageUp', 3, 10, 5), 0);
    assert.equal(listIndexAfter('Home', 6, 10, 5), 0);
    assert.equal(listIndexAfter('End', 2, 10, 5), 9);
  });

  test('an empty list, or a key that is not a list key, selects nothing', () => {
    for (const k of LIST_KEYS) assert.equal(listIndexAfter(k, -1, 0, 5), null);
    for (const k of ['Enter', 'Escape', 'ArrowLeft', 'a', 'Tab']) assert.equal(listIndexAfter(k, 2, 10, 5), null);
  });

  test('any key, any selection, any page: a row of the list, and a page moves at least one row', () => {
    fc.assert(
      fc.property(fc.constantFrom(...LIST_KEYS), fc.integer({ min: 1, max: 500 }), fc.integer({ min: -3, max: 600 }), fc.integer({ min: -2, max: 80 }), (key, length, index, page) => {
        const next = listIndexAfter(key, index, length, page)!;
        assert.ok(Number.isInteger(next) && next >= 0 && next < length);
        const selected = index >= 0 && index < length;
        if (selected && key === 'PageDown' && index < length - 1) assert.ok(next > index);
        if (selected && key === 'PageUp' && index > 0) assert.ok(next < index);
        if (selected && key === 'PageDown') assert.ok(next - index <= Math.max(1, page));
      }),
    );
  });

  test('a page is a screen of rows less one, at least one', () => {
    assert.equal(pageRows(400, 20), 19);
    assert.equal(pageRows(30, 20), 1);
    assert.equal(pageRows(0, 20), 1);
  });
});

describe('tab strip keys', () => {
  test('Left and Right wrap round; Home and End go to the ends', () => {
    assert.equal(tabIndexAfter('ArrowRight', 0, 3), 1);
    assert.equal(tabIndexAfter('ArrowRight', 2, 3), 0);
    assert.equal(tabIndexAfter('ArrowLeft', 0, 3), 2);
    assert.equal(tabIndexAfter('ArrowLeft', 2, 3), 1);
    assert.equal(tabIndexAfter('Home', 2, 3), 0);
    assert.equal(tabIndexAfter('End', 0, 3), 2);
  });

  test('no tab selected counts as the first; other keys and an empty strip do nothing', () => {
    assert.equal(tabIndexAfter('ArrowRight', -1, 3), 1);
    assert.equal(tabIndexAfter('ArrowDown', 1, 3), null);
    assert.equal(tabIndexAfter('Enter', 1, 3), null);
    assert.equal(tabIndexAfter('ArrowRight', 0, 0), null);
  });

  test('Right then Left comes back to the same tab, from any tab', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.nat(), (count, i) => {
        const at = i % count;
        assert.equal(tabIndexAfter('ArrowLeft', tabIndexAfter('ArrowRight', at, count)!, count), at);
      }),
    );
  });
});

describe('find shortcut', () => {
  const key = (k: string, mods: Partial<Record<'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey', boolean>> = {}) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods });
  test('Ctrl+F off macOS, Cmd+F on macOS; not with Alt or Shift, not the other modifier', () => {
    assert.equal(isFindKey(key('f', { ctrlKey: true }), false), true);
    assert.equal(isFindKey(key('F', { ctrlKey: true }), false), true);
    assert.equal(isFindKey(key('f', { metaKey: true }), false), false);
    assert.equal(isFindKey(key('f', { metaKey: true }), true), true);
    assert.equal(isFindKey(key('f', { ctrlKey: true }), true), false);
    assert.equal(isFindKey(key('f', { ctrlKey: true, shiftKey: true }), false), false);
    assert.equal(isFindKey(key('f', { ctrlKey: true, altKey: true }), false), false);
    assert.equal(isFindKey(key('f'), false), false);
    assert.equal(isFindKey(key('g', { ctrlKey: true }), false), false);
  });
});
