/**
 * Held answers (content/answers.ts): markers hold for KEEP_MS on the clock the
 * hook reads, on the one client they were named for, only when at least
 * MIN_MARKER long; a frame is held when its text contains a marker anywhere.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Natives } from '../../content/natives.ts';
import { createHeldAnswers, KEEP_MS, MIN_MARKER } from '../../content/answers.ts';

function held() {
  const clock = { t: 50_000 };
  const answers = createHeldAnswers({ now: () => clock.t } as unknown as Natives);
  return { answers, clock };
}

const ID = '6f1c2b1e-8a5d-4c1b';

describe('held answers', () => {
  it('hold a marker on its client for KEEP_MS, then let it go', () => {
    const { answers, clock } = held();
    assert.equal(answers.active, false);
    answers.hold([ID], 'c1');
    assert.equal(answers.active, true);
    assert.ok(answers.matches(`{"requestId":"${ID}"}`, 'c1'));
    clock.t += KEEP_MS;
    assert.ok(answers.matches(`{"requestId":"${ID}"}`, 'c1'), 'still held at KEEP_MS');
    clock.t += 1;
    assert.ok(!answers.matches(`{"requestId":"${ID}"}`, 'c1'), 'expired');
    assert.equal(answers.active, false, 'nothing left: the hot path is cheap again');
  });

  it('touch only the client they were named for', () => {
    const { answers } = held();
    answers.hold([ID], 'c1');
    // Positive witness on c1, then nothing on c2 with the same text.
    assert.ok(answers.matches(ID, 'c1'));
    assert.ok(!answers.matches(ID, 'c2'));
    answers.hold([ID], 'c2');
    assert.ok(answers.matches(ID, 'c2'));
  });

  it('refuse markers shorter than MIN_MARKER (they would match ordinary traffic)', () => {
    const { answers } = held();
    const short = 'x'.repeat(MIN_MARKER - 1);
    const long = 'y'.repeat(MIN_MARKER);
    answers.hold([short, long], 'c1');
    assert.ok(answers.matches(`…${long}…`, 'c1'));
    assert.ok(!answers.matches(`…${short}…`, 'c1'));
    answers.hold([42 as unknown as string], 'c1');
    assert.ok(!answers.matches('42', 'c1'));
  });

  it('match a marker anywhere in the text: any frame of that client carrying it is held', () => {
    const { answers } = held();
    answers.hold([ID], 'c1');
    // The answer itself, a Socket.IO frame, and an unrelated frame that quotes the id: all held while it holds.
    assert.ok(answers.matches(`42["action:result",{"requestId":"${ID}"}]`, 'c1'));
    assert.ok(answers.matches(`{"type":"chat","text":"about ${ID}"}`, 'c1'));
    assert.ok(!answers.matches(`{"requestId":"${ID.slice(0, -1)}"}`, 'c1'), 'a prefix of the marker is not it');
  });
});
