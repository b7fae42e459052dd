/** The contrast math the panel's contrast e2e runs in the page (test/support/contrast.ts), against WCAG's known values. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WCAG_MATH } from '../support/contrast.ts';

const math = new Function(`${WCAG_MATH}; return { luminance, ratio, parse, over };`)() as {
  luminance(c: number[]): number;
  ratio(a: number[], b: number[]): number;
  parse(s: string): number[] | null;
  over(top: number[], bottom: number[]): number[];
};
const rgb = (h: string) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));

test('black on white is 21:1, a colour on itself 1:1, and the order of the two does not matter', () => {
  assert.equal(math.ratio([0, 0, 0], [255, 255, 255]), 21);
  assert.equal(math.ratio(rgb('#1967d2'), rgb('#1967d2')), 1);
  assert.equal(math.ratio(rgb('#ffffff'), rgb('#777777')), math.ratio(rgb('#777777'), rgb('#ffffff')));
});

test("WCAG's threshold greys: #767676 on white passes AA (4.54), #777777 does not (4.48)", () => {
  assert.equal(Math.round(math.ratio(rgb('#767676'), rgb('#ffffff')) * 100) / 100, 4.54);
  assert.equal(Math.round(math.ratio(rgb('#777777'), rgb('#ffffff')) * 100) / 100, 4.48);
});

test('the review figures: the old light badges were 3.86 ("write") and 4.16 ("read")', () => {
  assert.equal(Math.round(math.ratio(rgb('#b06000'), rgb('#e8eaed')) * 100) / 100, 3.86);
  assert.equal(Math.round(math.ratio(rgb('#188038'), rgb('#e8eaed')) * 100) / 100, 4.16);
});

test('computed colours parse, and a translucent colour composites over its background', () => {
  assert.deepEqual(math.parse('rgb(1, 2, 3)'), [1, 2, 3, 1]);
  assert.deepEqual(math.parse('rgba(1, 2, 3, 0.5)'), [1, 2, 3, 0.5]);
  assert.deepEqual(math.parse('color(srgb 1 0 0.5 / 0.25)'), [255, 0, 127.5, 0.25]);
  assert.equal(math.parse('transparent'), null);
  assert.deepEqual(math.over([0, 0, 0, 0.5], [255, 255, 255, 1]), [127.5, 127.5, 127.5, 1]);
});
