/**
 * The demo's sign-in: one editor password, random session ids in a cookie,
 * sessions in Deno KV with an expiry. A real host uses its own auth.
 *
 * @module
 */
import { timingSafeEqual } from "node:crypto";
import type { Editor } from "../server/types.ts";

/** Name of the session cookie. */
export const SESSION_COOKIE = "cms_demo_session";

/** How long a session lives: 8 hours. */
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;

interface StoredSession {
  editor: string;
  expires: number;
}

/**
 * Sessions in Deno KV under `["demo", "sessions", sha256(id)]`. Only the hash
 * of the id is stored, so the KV file never holds a usable cookie.
 */
export class Sessions {
  readonly #kv: Deno.Kv;
  readonly #ttl: number;

  /** @param kv An open KV (the caller closes it). */
  constructor(kv: Deno.Kv, ttlMs = SESSION_TTL_MS) {
    this.#kv = kv;
    this.#ttl = ttlMs;
  }

  /** Starts a session for `editor` and returns its random id. */
  async create(editor: Editor): Promise<string> {
    const id = randomToken(32);
    const value: StoredSession = {
      editor: editor.name,
      expires: Date.now() + this.#ttl,
    };
    await this.#kv.set(await this.#key(id), value, { expireIn: this.#ttl });
    return id;
  }

  /** The editor of a live session, or `null`. */
  async get(id: string): Promise<Editor | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
    const entry = await this.#kv.get<StoredSession>(await this.#key(id));
    const session = entry.value;
    if (!session || session.expires <= Date.now()) return null;
    return { name: session.editor };
  }

  /** Ends a session (no-op for unknown ids). */
  async delete(id: string): Promise<void> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return;
    await this.#kv.delete(await this.#key(id));
  }

  async #key(id: string): Promise<Deno.KvKey> {
    return ["demo", "sessions", hex(await sha256(id))];
  }
}

/** The value of cookie `name` in the request, or `null`. */
export function readCookie(req: Request, name: string): string | null {
  const header = req.headers.get("Cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      return part.slice(eq + 1).trim();
    }
  }
  return null;
}

/**
 * A `Set-Cookie` value for the session: HttpOnly, SameSite=Lax, Path=/,
 * Secure on https. `id === null` clears the cookie.
 */
export function sessionCookie(id: string | null, secure: boolean): string {
  const parts = [
    `${SESSION_COOKIE}=${id ?? ""}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${id === null ? 0 : Math.floor(SESSION_TTL_MS / 1000)}`,
  ];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}

/** Compares two passwords in constant time (over their SHA-256 digests). */
export async function passwordMatches(
  given: string,
  expected: string,
): Promise<boolean> {
  const [a, b] = await Promise.all([sha256(given), sha256(expected)]);
  return timingSafeEqual(a, b) && expected.length > 0;
}

/** A random URL-safe token of `bytes` random bytes. */
export function randomToken(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...buf)).replace(/\+/g, "-")
    .replace(/\//g, "_").replace(/=+$/, "");
}

async function sha256(text: string): Promise<Uint8Array> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(text),
  );
  return new Uint8Array(digest);
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
