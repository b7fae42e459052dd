/**
 * The status line's word on what the capture could not show whole: items the
 * page's bounded buffer dropped before the panel read them, items a message
 * could not carry, and frames kept only as their head (over the capture cap),
 * each counted with its size. Never silent: a panel opened late on a page
 * that sent more than its buffer holds says exactly how much is missing.
 */
import { useModel } from '../store-context.ts';
import { sizeText } from '../../src/session/wire/capped.ts';

/** Sizes are of payloads as a frame's size is measured: UTF-16 units of text (its bytes when ASCII), bytes of binary. */
const SIZE_NOTE = 'Sizes count text in UTF-16 units (its bytes when it is ASCII) and binary in bytes; a postMessage or direct-call value by an estimate of its JSON.';

export function CaptureLosses() {
  const { recorder } = useModel();
  const { intake } = recorder;
  const lost = intake.totalLost();
  const lostSize = intake.totalLostSize();
  const undelivered = intake.totalUndelivered();
  return (
    <>
      {lost > 0 && (
        <span class="warn" data-testid="lost" title={`The page's bounded buffer dropped these before the panel read them. ${SIZE_NOTE}`}>
          {lost} dropped by the page buffer{lostSize > 0 ? ` (${sizeText(lostSize)})` : ''}
        </span>
      )}
      {undelivered > 0 && (
        <span class="warn" data-testid="undelivered" title={`Captured by the page, but a message carrying them could not be delivered to the panel. ${SIZE_NOTE}`}>
          {undelivered} not delivered{intake.undeliveredSize > 0 ? ` (${sizeText(intake.undeliveredSize)})` : ''}
        </span>
      )}
      {recorder.overCap > 0 && (
        <span class="warn" data-testid="over-cap" title={`Frames, messages and calls over the capture cap: the page kept only their head (each is a row of the Timeline that says so). ${SIZE_NOTE}`}>
          {recorder.overCap} over the capture cap ({sizeText(recorder.overCapSize)} not kept)
        </span>
      )}
    </>
  );
}
