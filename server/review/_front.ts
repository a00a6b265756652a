/**
 * The front the review endpoints share: one rate per review token across
 * all of them, the caller admitted and then scoped to a page, the page's
 * drafts an approval covers, and the `onComments` hook.
 *
 * @module
 */
import { parseAddress } from "../../core/address.ts";
import { storedAddress } from "../../core/stored_address.ts";
import { contentVersion } from "../../core/version.ts";
import { type EndpointCall, mayEdit } from "../http/mod.ts";
import {
  admit,
  type Caller,
  type EditorCaller,
  reviewerFor,
  TokenRate,
} from "./_access.ts";
import type { ReviewHandlerOptions } from "./options.ts";

/** Who the front admitted: an editor, or a token to check against a page. */
export type Admitted = EditorCaller | { kind: "token"; token: string };

/** The shared front of one set of review endpoints. */
export class ReviewFront {
  /** The endpoints' options. */
  readonly options: ReviewHandlerOptions;
  readonly #rate: TokenRate;

  /** A front over `options`; throws a `TypeError` for a signer of another capability. */
  constructor(options: ReviewHandlerOptions) {
    if (options.signer.capability !== "review") {
      throw new TypeError(
        'review links need a signer with the "review" capability (reviewSigner)',
      );
    }
    this.options = options;
    this.#rate = new TokenRate(options.reviewerRequestsPerMinute ?? 120);
  }

  /** Method, site, then a session or a (rate-limited) review token. */
  admit(
    req: Request,
    methods: readonly string[],
    call: EndpointCall | undefined,
  ): Promise<Admitted> {
    return admit(req, methods, this.options, this.#rate, call);
  }

  /** The caller on `page`: the editor, or the reviewer its token makes (403). */
  async scope(req: Request, admitted: Admitted, page: string): Promise<Caller> {
    return admitted.kind === "editor"
      ? admitted
      : await reviewerFor(req, admitted.token, page, this.options.signer);
  }

  /** Tells `onComments` that `page` changed (its errors are logged). */
  async changed(page: string): Promise<void> {
    try {
      await this.options.onComments?.(page);
    } catch (err) {
      console.error("cms: onComments failed", err);
    }
  }

  /**
   * The drafts an approval of `page` by `caller` covers, with their
   * versions: the drafts of fields on the page (`pageUrl`; every draft
   * without it), and for an editor only the fields they may edit.
   */
  async draftsOf(
    page: string,
    caller: Caller,
    req: Request,
    call: EndpointCall | undefined,
  ): Promise<{ field: string; version: string }[]> {
    const { store, pageUrl } = this.options;
    const fields: { field: string; version: string }[] = [];
    for (const draft of await store.drafts?.() ?? []) {
      const field = storedAddress(draft);
      const address = parseAddress(field);
      if (typeof address === "string") continue;
      if (pageUrl && pageOf(pageUrl, address) !== page) continue;
      if (
        caller.kind === "editor" &&
        !await mayEdit(this.options, req, address, caller.editor, call)
      ) continue;
      fields.push({ field, version: contentVersion(draft.value) });
    }
    return fields;
  }
}

/** `pageUrl(address)`, with an error counting as no page. */
export function pageOf(
  pageUrl: NonNullable<ReviewHandlerOptions["pageUrl"]>,
  address: Parameters<NonNullable<ReviewHandlerOptions["pageUrl"]>>[0],
): string | null {
  try {
    return pageUrl(address) ?? null;
  } catch {
    return null;
  }
}
