/**
 * The edit bar's types: its states, its buttons, what the conflict dialog
 * answers, and the mounted bar as the session and the panels use it. Types
 * only, importing nothing of the bar (`bar.ts`) or its dialog
 * (`conflict.ts`), which both use them.
 *
 * @module
 */

import type { IconName } from "./icons.ts";

/** Live-status dot states. */
export type BarState =
  | "clean"
  | "unsaved"
  | "drafts"
  | "saving"
  | "error"
  | "offline";

/** What the editor chose in the conflict dialog. */
export type ConflictChoice = "mine" | "stored" | "cancel";

/** One button of the edit bar. */
export interface BarAction {
  /** Visible text, also the accessible name. */
  label: string;
  run(): void;
  icon?: IconName;
  /** The highlighted main action. */
  primary?: boolean;
  /** Tooltip, e.g. the shortcut. */
  hint?: string;
  /** `aria-keyshortcuts`, e.g. `"Control+S Meta+S"`. */
  keys?: string;
}

/** The mounted edit bar. */
export interface EditBar {
  /** Sets the dot's state and the announced status text. */
  status(state: BarState, text: string): void;
  /**
   * Shows a toast above the bar with `actions` (each hides it) and a
   * close button; a new toast replaces the last, an empty `text` hides it.
   * `gone` is called once when this toast is hidden or replaced.
   */
  toast(text: string, actions?: BarAction[], gone?: () => void): void;
  /** Asks the editor to resolve a conflict; one dialog at a time. */
  conflict(
    field: string,
    mine: string,
    stored: string,
  ): Promise<ConflictChoice>;
  /** Adds an action button (before Done); returns its remover. */
  add(action: BarAction): () => void;
  /** Shows `el` before the editor's name (e.g. who else is here); returns its remover. */
  slot(el: HTMLElement): () => void;
  /** Removes the bar and gives the page its space back. */
  destroy(): void;
}
