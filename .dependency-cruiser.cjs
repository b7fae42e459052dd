/**
 * The layers, checked in `npm test` (npm run lint:deps):
 *   src/protocol  ←  src/session  ←  panel/, the tests, a CLI
 *   content/ (the page hook and bridge) stands apart.
 * The protocol core imports nothing of ours outside it; the session model
 * nothing of the UI, the page or the service worker; the page hook nothing
 * of the panel; and nothing anywhere is part of an import cycle.
 */
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', comment: 'An import cycle makes a module impossible to load, test or change alone.', from: {}, to: { circular: true } },
    {
      name: 'protocol-is-the-core',
      severity: 'error',
      comment: 'src/protocol is pure protocol logic: it imports nothing of ours outside itself.',
      from: { path: '^src/protocol/' },
      to: { path: '^(src|content|panel|test|scripts|bench)/', pathNot: '^src/protocol/' },
    },
    {
      name: 'session-below-the-ui',
      severity: 'error',
      comment: 'The session model runs in Node, the panel and a CLI: nothing of the panel, the page hook or the service worker.',
      from: { path: '^src/session/' },
      to: { path: '^(panel|content|src/background|test|scripts|bench)/' },
    },
    {
      name: 'hook-apart-from-the-panel',
      severity: 'error',
      comment: 'The page hook runs in every page it taps: it must not pull in the panel.',
      from: { path: '^content/' },
      to: { path: '^(panel|src/session|src/background)/' },
    },
    {
      name: 'playwright-fixture-on-top',
      severity: 'error',
      comment: 'oui-devtools/playwright (src/playwright) is a consumer of the layers below: nothing of the core, the session model, the page hook or the panel depends on it.',
      from: { path: '^(src/protocol|src/session|src/capture|content|panel)/' },
      to: { path: '^src/playwright/' },
    },
    {
      name: 'playwright-fixture-apart-from-the-panel',
      severity: 'error',
      comment: "The fixture runs in an app's test process: the session model and the protocol core, never the panel, the service worker or the page hook's modules (it loads the built init script).",
      from: { path: '^src/playwright/' },
      to: { path: '^(panel|src/background|content)/' },
    },
    {
      name: 'nothing-imports-the-cli',
      severity: 'error',
      comment: 'src/cli is the Node command line (files, streams, exit codes): a leaf nothing of the extension or the model may pull in.',
      from: { path: '^(src/protocol|src/session|src/capture|src/background|content|panel)/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'cli-above-the-model',
      severity: 'error',
      comment: 'The command line runs the session model as the panel does, without the panel, the page hook or the service worker.',
      from: { path: '^src/cli/' },
      to: { path: '^(panel|content|src/background)/' },
    },
    {
      name: 'runtime-is-pure',
      severity: 'error',
      comment: 'src/runtime (the stand-in runtime, scenarios, fault rules) runs in the panel, the page hook, Node and the Playwright fixture: the protocol core and the session model only.',
      from: { path: '^src/runtime/' },
      to: { path: '^(panel|content|src/background|src/playwright|src/cli|test|scripts|bench)/' },
    },
    {
      name: 'query-is-pure',
      severity: 'error',
      comment: 'src/query (the filter grammar) runs in the panel, the CLI and the Playwright fixture: the protocol core and the session model only.',
      from: { path: '^src/query/' },
      to: { path: '^(panel|content|src/background|src/playwright|src/cli|src/runtime|test|scripts|bench)/' },
    },
    {
      name: 'nothing-below-imports-the-query',
      severity: 'error',
      comment: 'The protocol core and the session model know nothing of the filter built on them.',
      from: { path: '^(src/protocol|src/session)/' },
      to: { path: '^src/query/' },
    },
    {
      name: 'background-apart-from-the-panel',
      severity: 'error',
      from: { path: '^src/background/' },
      to: { path: '^(panel|content)/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
  },
};
