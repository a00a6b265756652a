/**
 * Word-level diff of two texts (no DOM; the history panel shows it before a
 * restore). Words and the white space between them are the tokens; the
 * common start and end are cut first, then the longest common subsequence
 * of the rest decides what was kept. Past `budget` table cells (very long,
 * very different texts) the middle is shown as removed, then inserted.
 *
 * @module
 */

/** One run of the diff: kept (0), removed (-1) or inserted (1) text. */
export type DiffPart = [op: -1 | 0 | 1, text: string];

/** Words and white-space runs of `text`, in order. */
const tokens = (text: string): string[] => text.match(/\s+|\S+/g) ?? [];

/**
 * The word-level changes turning `from` into `to`; adjacent runs of the
 * same kind are merged, and joining the kept and inserted runs gives `to`.
 *
 * @example
 * ```ts
 * import { diffWords } from "./diff.ts";
 * diffWords("the old title", "the new title");
 * // [[0, "the "], [-1, "old"], [1, "new"], [0, " title"]]
 * ```
 */
export function diffWords(
  from: string,
  to: string,
  budget = 2_000_000,
): DiffPart[] {
  const a = tokens(from), b = tokens(to);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) {
    start++;
  }
  let end = 0;
  while (
    end < a.length - start && end < b.length - start &&
    a[a.length - 1 - end] === b[b.length - 1 - end]
  ) end++;
  const parts: DiffPart[] = [];
  const push = (op: -1 | 0 | 1, text: string) => {
    if (!text) return;
    const last = parts.at(-1);
    if (last?.[0] === op) last[1] += text;
    else parts.push([op, text]);
  };
  push(0, a.slice(0, start).join(""));
  const x = a.slice(start, a.length - end), y = b.slice(start, b.length - end);
  if ((x.length + 1) * (y.length + 1) > budget) {
    push(-1, x.join(""));
    push(1, y.join(""));
  } else middle(x, y, push);
  push(0, a.slice(a.length - end).join(""));
  return parts;
}

/** The LCS diff of token lists `x` and `y`, reported through `push`. */
function middle(
  x: string[],
  y: string[],
  push: (op: -1 | 0 | 1, text: string) => void,
): void {
  const n = x.length, m = y.length, w = m + 1;
  // lcs[i*w+j]: length of the LCS of x[i..] and y[j..].
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = x[i] === y[j]
        ? lcs[(i + 1) * w + j + 1] + 1
        : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      push(0, x[i++]);
      j++;
    } else if (
      i < n && (j === m || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1])
    ) {
      push(-1, x[i++]);
    } else push(1, y[j++]);
  }
}

/**
 * The part of a diff people need to see what changed: the changes with
 * about `context` characters of unchanged text around them (`…` where
 * text is left out), at most about `max` characters in all. A diff without
 * changes keeps its start.
 *
 * @example
 * ```ts
 * import { changeExcerpt, diffWords } from "./diff.ts";
 * changeExcerpt(diffWords("a long intro. Old end", "a long intro. New end"), 6);
 * // [[0, "…ntro. "], [-1, "Old"], [1, "New"], [0, " end"]]
 * ```
 */
export function changeExcerpt(
  parts: DiffPart[],
  context = 40,
  max = 200,
): DiffPart[] {
  const out: DiffPart[] = [];
  let left = max;
  const changed = parts.some(([op]) => op);
  parts.forEach(([op, text], i) => {
    if (left <= 0) return;
    if (!op && changed) {
      const first = !i, last = i === parts.length - 1;
      if (first && text.length > context) text = "…" + text.slice(-context);
      else if (last && text.length > context) {
        text = text.slice(0, context) + "…";
      } else if (!first && !last && text.length > 2 * context) {
        text = text.slice(0, context) + " … " + text.slice(-context);
      }
    }
    if (text.length > left) text = text.slice(0, left) + "…";
    left -= text.length;
    out.push([op, text]);
  });
  return out;
}
