/**
 * The one visual system of every editor surface (edit bar, toolbar, panels,
 * dialogs, toasts): design tokens and the base rules, adopted by each shadow
 * root next to its own few rules.
 *
 * Public tokens are CSS custom properties with the `--cms-` prefix; a host
 * sets them on `:root` (custom properties inherit into shadow roots, nothing
 * else does). Inside, each maps to a short private property, with our
 * default (light, or dark in the dark scheme) as its fallback:
 *
 * | token | default (light / dark) | used for |
 * | --- | --- | --- |
 * | `--cms-accent` | `#1d4ed8` / `#8ab4f8` | primary buttons, pressed, links |
 * | `--cms-on-accent` | `#fff` / `#0b1220` | text on the accent |
 * | `--cms-surface` | `#fff` / `#1f2328` | panels, bar, dialogs |
 * | `--cms-surface-2` | `#eef1f5` / `#2d333b` | secondary buttons, hover |
 * | `--cms-text` | `#1b1f24` / `#e6edf3` | text |
 * | `--cms-text-muted` | `#505a66` / `#a8b3bf` | hints, meta lines |
 * | `--cms-border` | `#6b7684` / `#768390` | borders of panels and inputs |
 * | `--cms-danger` | `#b42318` / `#ff938a` | errors, removed words |
 * | `--cms-success` | `#146c2e` / `#7ee2a8` | saved, inserted words |
 * | `--cms-radius` | `8px` | corners |
 * | `--cms-space` | `8px` | the spacing unit |
 * | `--cms-focus-ring` | the accent | the focus outline |
 * | `--cms-font` | `13px/1.4 system-ui, sans-serif` | all text |
 *
 * @module
 */

/** Our defaults, light then dark: accent, on accent, surface, surface 2,
 * text, muted text, border, danger, success. */
const LIGHT =
  "#1d4ed8 #fff #fff #eef1f5 #1b1f24 #505a66 #6b7684 #b42318 #146c2e";
const DARK =
  "#8ab4f8 #0b1220 #1f2328 #2d333b #e6edf3 #a8b3bf #768390 #ff938a #7ee2a8";
const NAMES = "a oa bg bg2 fg mu bd er ok".split(" ");
const TOKENS =
  "accent on-accent surface surface-2 text text-muted border danger success"
    .split(" ");
/** `--x:var(--cms-token,default)` for each private property and default. */
const tokens = (values: string) =>
  values.split(" ").map((v, i) => `--${NAMES[i]}:var(--cms-${TOKENS[i]},${v})`)
    .join(";");

/**
 * The base stylesheet of every editor shadow root: tokens, the dark scheme,
 * reduced motion, forced colours, and the shared parts (`.k` a card: panel
 * or dialog; buttons, `.p` the primary one; labels above inputs; `.e` an
 * error line; `.a` a row of actions; `.m` muted text; `.t` a badge).
 */
export const THEME = `:host{all:initial!important;${
  tokens(LIGHT)
};--r:var(--cms-radius,8px);--r2:calc(var(--r) - 2px);--sp:var(--cms-space,8px);--ring:var(--cms-focus-ring,var(--a));--f:var(--cms-font,13px/1.4 system-ui,sans-serif);--sh:0 6px 24px #0004}
@media(prefers-color-scheme:dark){:host{${tokens(DARK)};--sh:0 6px 24px #000a}}
[hidden]{display:none!important}
.k{font:var(--f);color:var(--fg);background:var(--bg);border:1px solid var(--bd);border-radius:var(--r);box-shadow:var(--sh);padding:calc(var(--sp)*1.5);margin:0}
h2{font-size:15px;margin:0 0 var(--sp)}
p{margin:0 0 var(--sp)}
button{all:unset;display:inline-flex;align-items:center;justify-content:center;gap:6px;min-height:30px;padding:4px 12px;border:1px solid var(--bd);border-radius:var(--r2);background:var(--bg2);color:var(--fg);font:var(--f);cursor:pointer;white-space:nowrap}
button:hover{filter:brightness(.93)}
.p{background:var(--a);border-color:var(--a);color:var(--oa);font-weight:600}
:focus-visible{outline:2px solid var(--ring);outline-offset:2px}
*,button,input{box-sizing:border-box}
label{display:flex;flex-direction:column;gap:4px;margin:0 0 var(--sp);font-weight:600}
.c{flex-direction:row;align-items:center;gap:6px;font-weight:400}
input[type=text]{all:unset;box-sizing:border-box;width:100%;min-height:30px;padding:4px 8px;border:1px solid var(--bd);border-radius:var(--r2);background:var(--bg);color:var(--fg);font:var(--f);font-weight:400}
[type=checkbox]{margin:0;accent-color:var(--a);width:16px;height:16px}
:disabled{opacity:.6}
.e{color:var(--er);margin:0 0 var(--sp)}
.e:empty{display:none}
.a{display:flex;flex-wrap:wrap;gap:var(--sp);justify-content:flex-end;align-items:center}
.m{color:var(--mu)}
dialog.k{margin:auto}
::backdrop{background:#0005}
@media(prefers-reduced-motion:reduce){*{transition:none!important;animation:none!important}}
@media(pointer:coarse){button{min-height:44px;min-width:44px}}
@media(forced-colors:active){.k,button,input{border:1px solid CanvasText}.p{forced-color-adjust:none;background:Highlight;color:HighlightText;border-color:Highlight}[aria-pressed=true]{outline:2px solid Highlight}}`;
