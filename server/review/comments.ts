/**
 * The comments endpoint: `GET comments?page=P` lists a page's comments and
 * verdicts, `POST comments` starts a thread or replies, `PATCH comments/ID`
 * edits one's own text or resolves and reopens a thread, `DELETE
 * comments/ID` deletes. Editors (with a session) see and write comments on
 * fields `canEdit` lets them edit; a reviewer (a review link's token) on
 * the link's page only.
 *
 * @module
 */
import { parseAddress } from "../../core/address.ts";
import type {
  Comment,
  CommentAuthor,
  CommentsAnswer,
} from "../../core/protocol/review.ts";
import { Status } from "../../core/protocol/mod.ts";
import {
  type EndpointCall,
  HttpError,
  json,
  mayEdit,
  readJsonObject,
  requestUrl,
} from "../http/mod.ts";
import type { CommentExpect, CommentUpdate } from "../store/mod.ts";
import type { Caller, ReviewerCaller } from "./_access.ts";
import { checkAnchor, checkPage, checkText, commentId } from "./_checks.ts";
import type { Admitted, ReviewFront } from "./_front.ts";

/** Largest comment body (2000 characters of text and an anchor fit). */
const MAX_BODY_BYTES = 32 * 1024;

/** What a comment request is answered from: the front, the request, its caller. */
export interface Call {
  /** The review endpoints' shared front. */
  front: ReviewFront;
  /** The request. */
  req: Request;
  /** The per-call options. */
  call: EndpointCall | undefined;
  /** Who was admitted: an editor, or a token not yet checked against a page. */
  admitted: Admitted;
}

/** The author a caller writes as: 403 for a reviewer who gave no name. */
export function authorOf(caller: Caller): CommentAuthor {
  if (caller.kind === "editor") {
    return { name: caller.editor.name.slice(0, 80), kind: "editor" };
  }
  if (caller.name === undefined) {
    throw new HttpError(Status.Forbidden, "Give your name first");
  }
  return { name: caller.name, kind: "reviewer" };
}

/** Whether `caller` may see (and write) comments on `field`. */
async function sees(
  { front, req, call }: Call,
  caller: Caller,
  field: string,
): Promise<boolean> {
  if (caller.kind === "reviewer") return true;
  const address = parseAddress(field);
  if (typeof address === "string") return false;
  return await mayEdit(front.options, req, address, caller.editor, call);
}

/** `GET comments?page=P`: the page's comments and verdicts. */
export async function listComments(c: Call): Promise<Response> {
  const page = checkPage(requestUrl(c.req).searchParams.get("page"));
  const caller = await c.front.scope(c.req, c.admitted, page);
  const { store } = c.front.options;
  const comments: Comment[] = [];
  for (const comment of await store.comments(page)) {
    if (await sees(c, caller, comment.anchor.field)) comments.push(comment);
  }
  const approvals = [];
  for (const approval of await store.approvals(page)) {
    const fields = [];
    for (const f of approval.fields) {
      if (await sees(c, caller, f.field)) fields.push(f);
    }
    approvals.push({ ...approval, fields });
  }
  const answer: CommentsAnswer = { comments, approvals };
  return json(Status.OK, answer, { "Cache-Control": "no-store" });
}

/** `POST comments`: a new thread, or a reply with `thread`. */
export async function addComment(c: Call): Promise<Response> {
  const body = await readJsonObject(c.req, MAX_BODY_BYTES);
  const page = checkPage(body.page);
  const caller = await c.front.scope(c.req, c.admitted, page);
  const author = authorOf(caller);
  const text = checkText(body.text);
  const { store, allowlist } = c.front.options;
  const id = crypto.randomUUID();
  let thread: string = id;
  let anchor;
  if (body.thread !== undefined) {
    const first = typeof body.thread === "string"
      ? await store.comment(body.thread)
      : null;
    if (!first || first.page !== page) {
      throw new HttpError(Status.NotFound, "That thread is gone");
    }
    thread = first.thread;
    anchor = first.anchor;
  } else {
    anchor = checkAnchor(allowlist, body.anchor).anchor;
  }
  if (!await sees(c, caller, anchor.field)) {
    throw new HttpError(Status.Forbidden, "Not allowed to edit this field");
  }
  const comment = await store.addComment({
    id,
    page,
    anchor,
    thread,
    text,
    author,
    created: new Date().toISOString(),
  });
  await c.front.changed(page);
  return json(201, comment);
}

/**
 * The comment of a `PATCH`/`DELETE` path, and its caller: 404 when there
 * is none or the caller may not see it, 403 from the front.
 */
async function target(
  c: Call,
): Promise<{ comment: Comment; caller: Caller }> {
  const id = commentId(requestUrl(c.req).pathname);
  const comment = await c.front.options.store.comment(id);
  if (!comment) throw new HttpError(Status.NotFound, "No such comment");
  const caller = await c.front.scope(c.req, c.admitted, comment.page);
  if (!await sees(c, caller, comment.anchor.field)) {
    throw new HttpError(Status.NotFound, "No such comment");
  }
  return { comment, caller };
}

/** `PATCH comments/ID` `{text?, resolved?}`: edit one's own, resolve, reopen. */
export async function patchComment(c: Call): Promise<Response> {
  const { comment, caller } = await target(c);
  const body = await readJsonObject(c.req, MAX_BODY_BYTES);
  const author = authorOf(caller);
  const patch: CommentUpdate = {};
  const now = new Date().toISOString();
  let expect: CommentExpect | undefined;
  if (body.text !== undefined) {
    patch.text = checkText(body.text);
    patch.edited = now;
    expect = { author };
  }
  if (body.resolved !== undefined) {
    if (typeof body.resolved !== "boolean") {
      throw new HttpError(Status.BadRequest, "resolved must be true or false");
    }
    patch.resolved = body.resolved ? { by: author.name, at: now } : null;
  }
  if (patch.text === undefined && patch.resolved === undefined) {
    throw new HttpError(
      Status.BadRequest,
      "Nothing to change: give text or resolved",
    );
  }
  const updated = await c.front.options.store.updateComment(
    comment.id,
    patch,
    expect,
  );
  if (!updated) throw new HttpError(Status.NotFound, "No such comment");
  await c.front.changed(comment.page);
  return json(Status.OK, updated);
}

/**
 * `DELETE comments/ID`: a reviewer deletes their own comments; an editor
 * any they may see (they keep the page's comments tidy).
 */
export async function deleteComment(c: Call): Promise<Response> {
  const { comment, caller } = await target(c);
  const expect = caller.kind === "reviewer"
    ? { author: authorOf(caller as ReviewerCaller) }
    : undefined;
  if (!await c.front.options.store.deleteComment(comment.id, expect)) {
    throw new HttpError(Status.NotFound, "No such comment");
  }
  await c.front.changed(comment.page);
  return new Response(null, { status: Status.NoContent });
}
