/**
 * The usability review's ten tasks (the shared docs/reviews/usability-review.md,
 * issue 20): what each took then, and the most actions the panel may take now.
 * An action is a click or a key press (test/support/actions.ts); the review
 * counted steps (a click, a choice in a list, a field's entry). The tests
 * that hold the panel to these: test/e2e/review-tasks.test.ts (tasks 1, 3–8,
 * 10), timeline-exchanges.test.ts (task 2), keyboard.test.ts (task 9).
 */
export interface ReviewTask {
  task: string;
  /** What the review measured, in its words. */
  review: string;
  /** The most actions the panel may take for it now. */
  target: number;
}

export const REVIEW_TASKS: Record<1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10, ReviewTask> = {
  1: { task: 'What the agent can do now (a surface, its actions and their alternatives)', review: '1 click + ~3 screens of scrolling; alternatives: raw + 3 expands', target: 2 },
  2: { task: 'Most recent failure and its cause (by mouse)', review: '5 steps', target: 3 },
  3: { task: 'Inject add_to_cart with an invalid param', review: '6 steps', target: 10 },
  4: { task: 'Replay a captured request and find its answer', review: '2 + finding the result row', target: 2 },
  5: { task: 'An approved action: did its argsHash match?', review: '1 step', target: 1 },
  6: { task: "How an observation's value changed over time", review: '1 click + scrolling past a 33-entry history', target: 2 },
  7: { task: 'Export, then Import into a fresh panel', review: 'Export 1 + Export redacted in the preview 1; Import 1 + file chooser', target: 4 },
  8: { task: 'Timeline: failed only, then one surface ("catal")', review: '3 steps (Status, Type, Surface)', target: 11 },
  9: { task: 'Task 2 by keyboard only', review: '≈95 keys', target: 12 },
  10: { task: 'Dark theme and legibility (text size, AA contrast)', review: 'emulated (0); 9 px text, 2 light badges under AA', target: 0 },
};
