/**
 * Undo history of one rich region: bounded snapshots of its `innerHTML` with
 * the selection as child-index paths. Native undo is not used: no engine
 * records DOM changes made by script (uploaded images, link edits, a value
 * set by the session), and mixing both stacks loses steps. So every change,
 * typed or scripted, lands here, and the region's keys and `beforeinput`
 * history events are answered from this stack in every engine.
 *
 * @module
 */

/** A selection point: child indices from the region down, then the offset. */
type Point = number[];

interface Step {
  html: string;
  /** Anchor and focus, or nothing when the selection was outside. */
  sel?: [Point, Point];
  /** What made this step (an `inputType`); typing of one kind merges. */
  kind: string;
  /** When it was last extended, and how many inputs it holds. */
  at: number;
  n: number;
}

/** One region's undo stack. */
export interface History {
  /** Notes the selection as the current step's "before" caret. */
  mark(): void;
  /**
   * Records the region's current HTML as a new step (or merges it into the
   * current one when `kind` continues the same typing). Returns false when
   * nothing changed.
   */
  record(kind?: string): boolean;
  /** Steps back (`-1`) or forward (`1`); false when there is no step. */
  go(delta: -1 | 1): boolean;
}

/** Inputs that merge into one step while they follow each other quickly. */
const TYPING = /^(insertText|deleteContent(Backward|Forward))$/;
/** Steps kept; older ones fall off. */
const LIMIT = 100;
/** A pause longer than this (ms), or this many inputs, starts a new step. */
const PAUSE = 1000;
const RUN = 20;

function pointOf(root: Node, node: Node, offset: number): Point | undefined {
  const path = [offset];
  for (let n = node; n !== root; n = n.parentNode!) {
    if (!n.parentNode) return undefined;
    path.unshift([...n.parentNode.childNodes].indexOf(n as ChildNode));
  }
  return path;
}

function nodeAt(root: Node, p: Point): [Node, number] | undefined {
  let n: Node | undefined = root;
  for (const i of p.slice(0, -1)) n = n?.childNodes[i];
  return n && [n, p[p.length - 1]];
}

/**
 * Starts the history of `el` with its current content as the first step.
 *
 * @example
 * ```ts ignore
 * const history = createHistory(el);
 * el.addEventListener("beforeinput", () => history.mark());
 * el.addEventListener("input", (e) => history.record(e.inputType));
 * // Ctrl+Z:
 * history.go(-1);
 * ```
 */
export function createHistory(el: HTMLElement): History {
  const selection = (): Step["sel"] => {
    const s = getSelection();
    if (!s?.anchorNode || !el.contains(s.anchorNode)) return undefined;
    const a = pointOf(el, s.anchorNode, s.anchorOffset);
    const f = pointOf(el, s.focusNode!, s.focusOffset);
    return a && f && [a, f];
  };
  const steps: Step[] = [{ html: el.innerHTML, kind: "", at: 0, n: 0 }];
  let index = 0;
  return {
    mark() {
      steps[index].sel = selection() ?? steps[index].sel;
    },
    record(kind = "") {
      const html = el.innerHTML, now = Date.now(), top = steps[index];
      if (html === top.html) return false;
      steps.length = index + 1;
      if (
        TYPING.test(kind) && kind === top.kind && now - top.at < PAUSE &&
        top.n < RUN
      ) {
        Object.assign(top, { html, sel: selection(), at: now, n: top.n + 1 });
      } else {
        steps.push({ html, sel: selection(), kind, at: now, n: 1 });
        if (steps.length > LIMIT) steps.shift();
        index = steps.length - 1;
      }
      return true;
    },
    go(delta) {
      const step = steps[index + delta];
      if (!step) return false;
      index += delta;
      el.innerHTML = step.html;
      // The next typing starts a step of its own.
      step.kind = "";
      const s = getSelection();
      const [a, f] = step.sel?.map((p) => nodeAt(el, p)) ?? [];
      el.focus();
      if (s && a && f) {
        try {
          s.setBaseAndExtent(a[0], a[1], f[0], f[1]);
        } catch { /* a stale point: the caret stays where focus put it */ }
      }
      return true;
    },
  };
}
