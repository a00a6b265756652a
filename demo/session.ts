/**
 * The demo's sign-in: one editor password, random session ids in a cookie,
 * sessions in Deno KV with an expiry. A real host uses its own auth.
 *
 * @module
 */
import { timingSafeEqual } from "node:crypto";
import type { Editor } from "../server/http/mod.ts";

/** Name of the session cookie. */
export const SESSION_COOKIE = "cms_demo_session";

/** How long a session lives: 8 hours. */
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;

interface StoredSession {
  editor: string;
  expires: number;
  /** The password epoch the session was created in. */
  epoch?: string;
}

/** The stored fingerprint of the password in effect, and its epoch. */
interface PasswordRecord {
  salt: string;
  digest: string;
  epoch: string;
}

const PASSWORD_KEY: Deno.KvKey = ["demo", "password"];

/**
 * The Deno KV calls sessions need; shared storage makes them shared. The
 * password record is written with a check-and-set: Deno KV's `atomic()`,
 * or `setIf` where there is no `atomic` (the PostgreSQL table), so that
 * processes starting at the same moment agree on one epoch.
 */
export type SessionKv =
  & Pick<Deno.Kv, "get" | "set" | "delete">
  & Partial<Pick<Deno.Kv, "atomic">>
  & {
    /**
     * Writes `value` under `key` only while the entry's versionstamp is
     * still `versionstamp` (`null`: no entry); resolves whether it wrote.
     */
    setIf?(
      key: Deno.KvKey,
      value: unknown,
      versionstamp: string | null,
    ): Promise<boolean>;
  };

/**
 * Sessions in Deno KV under `["demo", "sessions", sha256(id)]`. Only the hash
 * of the id is stored, so the KV file never holds a usable cookie.
 */
export class Sessions {
  readonly #kv: SessionKv;
  readonly #ttl: number;
  /** Sessions of another password epoch are over. */
  #epoch = "";

  /**
   * @param kv An open KV (the caller closes it), or anything with its `get`,
   * `set` and `delete` (the demo's PostgreSQL table, `pg_sessions.ts`).
   */
  constructor(kv: SessionKv, ttlMs = SESSION_TTL_MS) {
    this.#kv = kv;
    this.#ttl = ttlMs;
  }

  /**
   * Binds the sessions to `password`. When it differs from the password of
   * the last start (same KV), a new epoch begins and every older session is
   * over: a password change signs everybody out. Only a salted PBKDF2
   * fingerprint of the password is kept.
   */
  async usePassword(password: string): Promise<void> {
    // Several processes may start at once on one store: each writes only
    // over the record it read, so every one ends with the same epoch.
    for (let i = 0; i < 20; i++) {
      const entry = await this.#kv.get<PasswordRecord>(PASSWORD_KEY);
      const stored = entry.value;
      if (
        stored && await fingerprint(password, stored.salt) === stored.digest
      ) {
        this.#epoch = stored.epoch;
        return;
      }
      const salt = randomToken(16);
      const record: PasswordRecord = {
        salt,
        digest: await fingerprint(password, salt),
        epoch: randomToken(16),
      };
      if (await this.#setIf(record, entry.versionstamp)) {
        this.#epoch = record.epoch;
        return;
      }
    }
    throw new Error(
      "The password record keeps changing: is another " +
        "process starting with a different password?",
    );
  }

  /** Writes the password record unless it changed since `versionstamp`. */
  async #setIf(
    record: PasswordRecord,
    versionstamp: string | null,
  ): Promise<boolean> {
    const kv = this.#kv;
    if (kv.atomic) {
      try {
        const result = await kv.atomic()
          .check({ key: PASSWORD_KEY, versionstamp })
          .set(PASSWORD_KEY, record).commit();
        return result.ok;
      } catch (err) {
        // A KV file that several processes open at the same moment is
        // briefly locked by whichever sets it up: read again, retry.
        if (!/database is locked/.test(String(err))) throw err;
        await new Promise((r) => setTimeout(r, 20 + Math.random() * 80));
        return false;
      }
    }
    if (kv.setIf) return await kv.setIf(PASSWORD_KEY, record, versionstamp);
    await kv.set(PASSWORD_KEY, record);
    return true;
  }

  /** Starts a session for `editor` and returns its random id. */
  async create(editor: Editor): Promise<string> {
    const id = randomToken(32);
    const value: StoredSession = {
      editor: editor.name,
      expires: Date.now() + this.#ttl,
      epoch: this.#epoch,
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
    if ((session.epoch ?? "") !== this.#epoch) return null;
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

/** A salted PBKDF2-SHA-256 fingerprint of a password, hex. */
async function fingerprint(password: string, salt: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(password),
    "PBKDF2",
    false,
    ["deriveBits"],
  );
  const bits = await crypto.subtle.deriveBits(
    {
      name: "PBKDF2",
      hash: "SHA-256",
      salt: new TextEncoder().encode(salt),
      iterations: 100_000,
    },
    key,
    256,
  );
  return hex(new Uint8Array(bits));
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
