/** The shared "Oldest first" checkbox: the same setting in every view that shows it. */
import { oldestFirst, setOldestFirst } from '../sort-order.ts';

export function SortToggle() {
  return (
    <label class="toggle sort-toggle" title="Newest entries come first in Acks, Hashes, Approvals, Observations and Findings; tick to list the oldest first in all of them">
      <input type="checkbox" checked={oldestFirst.value} onChange={(e) => setOldestFirst((e.target as HTMLInputElement).checked)} />
      Oldest first
    </label>
  );
}
