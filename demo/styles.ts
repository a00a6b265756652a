/** The demo site's stylesheet, inlined into every page. @module */

/** CSS of the demo pages. */
export const STYLES = `
.hero { display: block; width: 100%; height: auto; border-radius: 12px;
  margin: 0 0 1rem; }
:root {
  --ink: #1d2430; --muted: #5b6576; --line: #e3e7ee; --bg: #fbfbfd;
  --accent: #3457d5; --accent-ink: #fff; --card: #fff;
  font-family: ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto,
    "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); background: var(--bg);
  line-height: 1.6; -webkit-text-size-adjust: 100%;
}
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: flex; flex-direction: column; }
.wrap { width: 100%; max-width: 46rem; margin: 0 auto; padding: 0 1.25rem; }
a { color: var(--accent); }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: .9em; background: #eef1f6; padding: .1em .35em; border-radius: 4px; }
img { max-width: 100%; height: auto; }

.site-header { border-bottom: 1px solid var(--line); background: #fff; }
.header-row { display: flex; align-items: center; justify-content: space-between;
  gap: 1rem; min-height: 3.5rem; max-width: 60rem; }
.brand { font-weight: 700; letter-spacing: .02em; color: var(--ink);
  text-decoration: none; font-size: 1.05rem; }
.brand-mark { color: var(--accent); }
.nav { display: flex; align-items: center; gap: .6rem; flex-wrap: wrap; }
.who { color: var(--muted); font-size: .875rem; }
.inline { display: inline; margin: 0; }
.btn { display: inline-block; font: inherit; font-size: .875rem; font-weight: 600;
  padding: .4rem .85rem; border-radius: 8px; border: 1px solid var(--line);
  background: #fff; color: var(--ink); text-decoration: none; cursor: pointer; }
.btn:hover { border-color: #c5ccd8; }
.btn-primary { background: var(--accent); border-color: var(--accent);
  color: var(--accent-ink); }
.btn-primary:hover { background: #2846b8; border-color: #2846b8; }
.btn-quiet { background: transparent; border-color: transparent; color: var(--muted); }

.page { padding-top: 3rem; padding-bottom: 4rem; flex: 1; }
.title { font-size: clamp(2rem, 5vw, 2.75rem); line-height: 1.15;
  letter-spacing: -.02em; margin: 0 0 .75rem; }
.lead { font-size: 1.2rem; color: var(--muted); margin-bottom: 2rem; }
.lead p { margin: 0; }
.prose { font-size: 1.0625rem; }
.prose h2 { font-size: 1.4rem; margin: 2rem 0 .5rem; letter-spacing: -.01em; }
.prose h3, .prose h4 { margin: 1.5rem 0 .5rem; }
.prose p, .prose ul, .prose ol, .prose blockquote, .prose pre { margin: 0 0 1rem; }
.prose blockquote { border-left: 3px solid var(--line); padding-left: 1rem;
  color: var(--muted); }
.prose img { display: block; margin: 1.25rem 0; border-radius: 8px; }
.prose pre { background: #eef1f6; padding: .75rem 1rem; border-radius: 8px;
  overflow-x: auto; }

.features { margin-top: 3rem; }
.features h2 { font-size: .8rem; text-transform: uppercase; letter-spacing: .1em;
  color: var(--muted); margin: 0 0 1rem; }
.features ul { list-style: none; padding: 0; margin: 0; display: grid;
  grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr)); gap: .9rem; }
.features li { background: var(--card); border: 1px solid var(--line);
  border-radius: 12px; padding: 1rem 1.1rem; font-weight: 600;
  box-shadow: 0 1px 2px rgba(16,24,40,.04); }

.narrow { max-width: 26rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 14px;
  padding: 1.75rem; box-shadow: 0 8px 24px rgba(16,24,40,.06); }
.login h1 { margin: 0 0 .5rem; font-size: 1.5rem; }
.login label { display: block; font-weight: 600; margin: 1rem 0 .35rem; }
.login input[type=password] { width: 100%; font: inherit; padding: .55rem .7rem;
  border: 1px solid #c5ccd8; border-radius: 8px; margin-bottom: 1rem; }
.muted { color: var(--muted); font-size: .925rem; }
.error { color: #b42318; background: #fef3f2; border: 1px solid #fecdca;
  padding: .5rem .75rem; border-radius: 8px; }

.site-footer { border-top: 1px solid var(--line); color: var(--muted);
  font-size: .85rem; padding: 1.25rem 0; }

`;

/** Extra CSS of edit mode only (visitors never get marker selectors). */
export const EDIT_STYLES = `
[data-cms-field] { outline: 1px dashed #b8c4e8; outline-offset: 4px;
  border-radius: 4px; }
[data-cms-field]:hover, [data-cms-field]:focus-within {
  outline: 2px solid var(--accent); }
.features li[data-cms-field] { outline-offset: 2px; border-radius: 12px; }
.page { padding-bottom: 7rem; }

.drawer-backdrop { position: fixed; inset: 0; background: rgba(16,24,40,.25);
  z-index: 2147483000; }
.drawer { position: fixed; top: 0; right: 0; bottom: 0; width: min(26rem, 100vw);
  background: #fff; box-shadow: -12px 0 32px rgba(16,24,40,.15);
  z-index: 2147483001; display: flex; flex-direction: column; }
.drawer header { display: flex; align-items: center; gap: .5rem;
  padding: 1rem 1.25rem; border-bottom: 1px solid var(--line); }
.drawer header h2 { font-size: 1.05rem; margin: 0; flex: 1; }
.drawer header svg { width: 1.1rem; height: 1.1rem; }
.drawer .drawer-body { padding: 1.25rem; overflow: auto; flex: 1; }
.drawer .drawer-body label { font-weight: 600; display: block; margin-bottom: .4rem; }
.drawer .drawer-editor { border: 1px solid #c5ccd8; border-radius: 8px;
  min-height: 8rem; }
.drawer footer { display: flex; gap: .5rem; justify-content: flex-end;
  align-items: center; padding: 1rem 1.25rem; border-top: 1px solid var(--line); }
.drawer .status { margin-right: auto; color: var(--muted); font-size: .85rem; }
.icon-btn { background: none; border: 0; cursor: pointer; padding: .25rem;
  color: var(--muted); display: inline-flex; }
`;
