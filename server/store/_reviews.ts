/**
 * Comments and approvals in memory: the part of the memory store that keeps
 * review data. Every change is planned (`review.ts`) and applied in one
 * synchronous step, so it is atomic in one process.
 *
 * @module
 */
import type { Approval, Comment } from "../../core/protocol/review.ts";
import {
  approvalsToDrop,
  byCreated,
  checkApproval,
  checkComment,
  type CommentExpect,
  type CommentUpdate,
  planAdd,
  planDelete,
  planUpdate,
  ReviewRefusal,
  type ReviewStore,
} from "./review.ts";
import type { StoreLine } from "./types.ts";

/** Comments and approvals of a memory store, per page. */
export class MemoryReviews implements ReviewStore {
  /** Page → comment id → comment. */
  #comments = new Map<string, Map<string, Comment>>();
  /** Comment id → its page. */
  #pageOf = new Map<string, string>();
  /** Page → its verdicts. */
  #approvals = new Map<string, Approval[]>();

  /** Whether nothing is kept. */
  get empty(): boolean {
    return !this.#pageOf.size && !this.#approvals.size;
  }

  #page(page: string): Map<string, Comment> {
    let map = this.#comments.get(page);
    if (!map) this.#comments.set(page, map = new Map());
    return map;
  }

  /** Stores a new comment (see {@linkcode ReviewStore.addComment}). */
  addComment(comment: Comment): Promise<Comment> {
    try {
      checkComment(comment);
      const page = this.#comments.get(comment.page);
      const c = planAdd(comment, {
        count: page?.size ?? 0,
        taken: this.#pageOf.has(comment.id),
        first: page?.get(comment.thread),
      });
      this.#page(c.page).set(c.id, c);
      this.#pageOf.set(c.id, c.page);
      return Promise.resolve(structuredClone(c));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Changes a comment (see {@linkcode ReviewStore.updateComment}). */
  updateComment(
    id: string,
    patch: CommentUpdate,
    expect?: CommentExpect,
  ): Promise<Comment | null> {
    try {
      const page = this.#comments.get(this.#pageOf.get(id)!);
      const current = page?.get(id);
      if (!current) return Promise.resolve(null);
      const next = planUpdate(current, patch, expect);
      page!.set(id, next);
      return Promise.resolve(structuredClone(next));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Deletes a comment (see {@linkcode ReviewStore.deleteComment}). */
  deleteComment(id: string, expect?: CommentExpect): Promise<boolean> {
    try {
      const page = this.#comments.get(this.#pageOf.get(id)!);
      const current = page?.get(id);
      if (!page || !current) return Promise.resolve(false);
      let replies = 0;
      for (const c of page.values()) {
        if (c.thread === current.thread && c.id !== c.thread) replies++;
      }
      const first = page.get(current.thread) ?? null;
      const { remove, keep } = planDelete(current, first, replies, expect);
      for (const gone of remove) {
        page.delete(gone);
        this.#pageOf.delete(gone);
      }
      if (keep) page.set(keep.id, keep);
      if (!page.size) this.#comments.delete(current.page);
      return Promise.resolve(true);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** The page's comments, oldest first. */
  comments(page: string): Promise<Comment[]> {
    const map = this.#comments.get(page);
    return Promise.resolve(
      map ? structuredClone([...map.values()].sort(byCreated)) : [],
    );
  }

  /** Comment `id`, or `null`. */
  comment(id: string): Promise<Comment | null> {
    const c = this.#comments.get(this.#pageOf.get(id)!)?.get(id);
    return Promise.resolve(c ? structuredClone(c) : null);
  }

  /** Records a verdict, dropping the page's oldest past the limit. */
  addApproval(approval: Approval): Promise<Approval> {
    try {
      const a = structuredClone(checkApproval(approval));
      const list = this.#approvals.get(a.page) ?? [];
      if (list.some((x) => x.id === a.id)) {
        throw new ReviewRefusal(409, "That verdict id is taken");
      }
      const drop = new Set(approvalsToDrop(list).map((x) => x.id));
      this.#approvals.set(a.page, [...list.filter((x) => !drop.has(x.id)), a]);
      return Promise.resolve(structuredClone(a));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** The page's verdicts, oldest first. */
  approvals(page: string): Promise<Approval[]> {
    const list = this.#approvals.get(page) ?? [];
    return Promise.resolve(structuredClone([...list].sort(byCreated)));
  }

  /** Every comment, then every verdict, as export lines: by page, then id. */
  *lines(): Iterable<StoreLine> {
    for (const page of [...this.#comments.keys()].sort()) {
      const list = [...this.#comments.get(page)!.values()];
      for (const c of list.sort((a, b) => a.id < b.id ? -1 : 1)) {
        yield { type: "comment", comment: structuredClone(c) };
      }
    }
    for (const page of [...this.#approvals.keys()].sort()) {
      const list = [...this.#approvals.get(page)!];
      for (const a of list.sort((a, b) => a.id < b.id ? -1 : 1)) {
        yield { type: "approval", approval: structuredClone(a) };
      }
    }
  }

  /** Loads one comment or verdict of an export, as it was. */
  load(line: StoreLine): void {
    if (line.type === "comment") {
      const c = structuredClone(checkComment(line.comment));
      this.#page(c.page).set(c.id, c);
      this.#pageOf.set(c.id, c.page);
    } else if (line.type === "approval") {
      const a = structuredClone(checkApproval(line.approval));
      this.#approvals.set(a.page, [...this.#approvals.get(a.page) ?? [], a]);
    }
  }
}
