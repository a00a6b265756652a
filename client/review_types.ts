/**
 * The review view's state and what its panel (`review_panel.ts`, a lazy
 * chunk) calls back into: types only, shared by both.
 *
 * @module
 */

import type {
  Approval,
  CommentAuthor,
  CommentsAnswer,
  ReviewLinkAnswer,
  TextAnchor,
} from "../core/protocol/review.ts";
import type { EditBar } from "./bar_types.ts";
import type { CmsConfig } from "./config.ts";
import type { Kit } from "./dom.ts";
import type { L } from "./review_labels.ts";
import type { Thread } from "./review_model.ts";

/** The view's state. */
export interface View {
  kit: Kit;
  bar: EditBar;
  cfg: CmsConfig;
  me: CommentAuthor;
  /** Request headers (the review token on a reviewer's calls). */
  headers: Record<string, string>;
  data: CommentsAnswer;
  list: Thread[];
  /** Each field's first region. */
  els: Map<string, HTMLElement>;
  ranges: Map<string, Range>;
  root: ShadowRoot;
  panel: HTMLElement;
  float: HTMLElement;
  open?: boolean;
  all?: boolean;
  active?: string;
  /** The selection's anchor, for the Comment button. */
  sel?: TextAnchor;
  /** What the panel's top form is: a new thread's anchor, a verdict. */
  form?: TextAnchor | Approval["verdict"];
  replying?: string;
  editing?: string;
  link?: ReviewLinkAnswer;
  error?: string;
  /** Texts typed in the panel, by form key (kept across renders). */
  drafts: Map<string, string>;
  /** Removes the bar's count button. */
  offBar?: () => void;
  /** An IME composition is under way in the panel (no render then). */
  composing?: boolean;
  /** The count button's label. */
  label?: string;
  /** A reviewer's event stream. */
  es?: EventSource;
  /** The panel's chunk, once loaded. */
  P?: { renderPanel(v: View, x: PanelActions): Node[] };
}

/** What the panel calls back into the view. */
export interface PanelActions {
  /** Sends a request; re-reads on success, shows the refusal otherwise. */
  call(
    v: View,
    method: string,
    url: string,
    body?: unknown,
  ): Promise<Response | undefined>;
  /** Scrolls to thread `id`'s text and marks it. */
  jump(v: View, id: string): void;
  /** Opens or closes the panel. */
  toggle(v: View, open: boolean): void;
  /** Renders the panel again. */
  render(v: View): void;
  /** Opens a reviewer's event stream (once named: the cookie admits it). */
  stream(v: View): void;
  /** The review labels (so the panel's chunk does not ship them again). */
  L: typeof L;
  /** A verdict's line. */
  said(a: Approval, gone?: boolean): string;
}
