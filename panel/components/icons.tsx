/** Toolbar icons drawn inline: DevTools has no emoji font everywhere. */
const box = { width: 14, height: 14, viewBox: '0 0 14 14', 'aria-hidden': true } as const;

export const PauseIcon = () => (
  <svg {...box}>
    <rect x="3" y="2" width="3" height="10" fill="currentColor" />
    <rect x="8" y="2" width="3" height="10" fill="currentColor" />
  </svg>
);

export const PlayIcon = () => (
  <svg {...box}>
    <path d="M3 2 L12 7 L3 12 Z" fill="currentColor" />
  </svg>
);

export const ClearIcon = () => (
  <svg {...box}>
    <circle cx="7" cy="7" r="5" fill="none" stroke="currentColor" stroke-width="1.6" />
    <path d="M3.5 10.5 L10.5 3.5" stroke="currentColor" stroke-width="1.6" />
  </svg>
);
