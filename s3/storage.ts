/**
 * A {@linkcode MediaStorage} on any S3-compatible service (AWS S3, R2, MinIO),
 * signed with SigV4 by `aws4fetch`.
 *
 * @module
 */
import { AwsClient } from "aws4fetch";
import type { MediaObjectInfo, MediaStorage } from "../server/media/mod.ts";

/** Options of {@linkcode S3MediaStorage}. */
export interface S3MediaStorageOptions {
  /** Service endpoint, e.g. `https://s3.eu-west-1.amazonaws.com`. */
  endpoint: string;
  /** Signing region, e.g. `eu-west-1` (`auto` for R2). */
  region: string;
  /** Bucket name. */
  bucket: string;
  /** Access key id. */
  accessKeyId: string;
  /** Secret access key. */
  secretAccessKey: string;
  /** Public base address of the bucket's objects, e.g. a CDN origin. */
  publicUrl: string;
  /**
   * `true`: path-style URLs (`<endpoint>/<bucket>/<key>`, MinIO and most
   * self-hosted servers). `false` (default): virtual-hosted URLs
   * (`<bucket>.<endpoint host>/<key>`, AWS's recommended addressing).
   */
  pathStyle?: boolean;
}

/**
 * Stores media as objects in an S3 bucket, with the verified content type.
 * A failed PUT throws an error naming the HTTP status and S3 error code.
 *
 * @example
 * ```ts
 * import { S3MediaStorage } from "@inplace/cms/s3";
 * const media = new S3MediaStorage({
 *   endpoint: "https://s3.eu-west-1.amazonaws.com",
 *   region: "eu-west-1",
 *   bucket: "my-site-media",
 *   accessKeyId: Deno.env.get("S3_KEY")!,
 *   secretAccessKey: Deno.env.get("S3_SECRET")!,
 *   publicUrl: "https://media.example.com",
 * });
 * await media.put("media/a.png", new Uint8Array([137, 80]), "image/png");
 * media.url("media/a.png"); // "https://media.example.com/media/a.png"
 * ```
 */
export class S3MediaStorage implements MediaStorage {
  readonly #client: AwsClient;
  readonly #base: string;
  readonly #publicUrl: string;

  /** Creates a storage for one bucket. */
  constructor(options: S3MediaStorageOptions) {
    this.#client = new AwsClient({
      accessKeyId: options.accessKeyId,
      secretAccessKey: options.secretAccessKey,
      region: options.region,
      service: "s3",
    });
    const url = new URL(options.endpoint);
    const path = url.pathname.replace(/\/+$/, "");
    this.#base = options.pathStyle
      ? `${url.origin}${path}/${encodeURIComponent(options.bucket)}`
      : `${url.protocol}//${options.bucket}.${url.host}${path}`;
    this.#publicUrl = options.publicUrl.replace(/\/+$/, "");
  }

  /** The request URL of `key` at the S3 endpoint. */
  objectUrl(key: string): string {
    return `${this.#base}/${encodeKey(key)}`;
  }

  /** PUTs `bytes` as the object `key` with `contentType`. */
  async put(
    key: string,
    bytes: Uint8Array,
    contentType: string,
  ): Promise<void> {
    const res = await this.#client.fetch(this.objectUrl(key), {
      method: "PUT",
      body: bytes as Uint8Array<ArrayBuffer>,
      headers: {
        "Content-Type": contentType,
        "Content-Length": String(bytes.byteLength),
      },
    });
    if (res.ok) {
      await res.body?.cancel();
      return;
    }
    const code = /<Code>([^<]{1,64})<\/Code>/.exec(await res.text())?.[1];
    throw new Error(
      `S3 PUT ${key} failed: ${res.status}${code ? ` ${code}` : ""}`,
    );
  }

  /**
   * DELETEs the object `key`. S3 answers 204 also for a missing key; a
   * failure throws an error naming the HTTP status and S3 error code.
   */
  async delete(key: string): Promise<void> {
    const res = await this.#client.fetch(this.objectUrl(key), {
      method: "DELETE",
    });
    if (res.ok || res.status === 404) {
      await res.body?.cancel();
      return;
    }
    const code = /<Code>([^<]{1,64})<\/Code>/.exec(await res.text())?.[1];
    throw new Error(
      `S3 DELETE ${key} failed: ${res.status}${code ? ` ${code}` : ""}`,
    );
  }

  /**
   * Every object of the bucket (`ListObjectsV2`, 1000 a page), with its
   * size and last change. For the media library and gc.
   */
  async *list(): AsyncIterable<MediaObjectInfo> {
    let token: string | undefined;
    for (let page = 0; page < 1_000_000; page++) {
      const url = new URL(this.#base);
      url.searchParams.set("list-type", "2");
      if (token) url.searchParams.set("continuation-token", token);
      const res = await this.#client.fetch(url.toString());
      const xml = await res.text();
      if (!res.ok) {
        const code = /<Code>([^<]{1,64})<\/Code>/.exec(xml)?.[1];
        throw new Error(
          `S3 LIST failed: ${res.status}${code ? ` ${code}` : ""}`,
        );
      }
      for (
        const [, body] of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)
      ) {
        const key = tag(body, "Key");
        if (key === null) continue;
        yield {
          key,
          size: Number(tag(body, "Size") ?? 0),
          modified: new Date(tag(body, "LastModified") ?? 0).toISOString(),
        };
      }
      if (tag(xml, "IsTruncated") !== "true") return;
      token = tag(xml, "NextContinuationToken") ?? undefined;
      if (!token) return;
    }
  }

  /** Readiness probe: a signed `HEAD` of the bucket must answer 2xx. */
  async check(): Promise<void> {
    const res = await this.#client.fetch(`${this.#base}/`, { method: "HEAD" });
    await res.body?.cancel();
    if (!res.ok) throw new Error(`S3 HEAD bucket failed: ${res.status}`);
  }

  /** The public base address, a slash, then the key (URL-encoded per segment). */
  url(key: string): string {
    return `${this.#publicUrl}/${encodeKey(key)}`;
  }
}

/** The text of the first `<name>` element in `xml`, unescaped, or `null`. */
function tag(xml: string, name: string): string | null {
  const m = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  if (!m) return null;
  return m[1].replace(/&(lt|gt|quot|apos|amp|#\d+|#x[\da-f]+);/gi, (_, e) => {
    const named: Record<string, string> = {
      lt: "<",
      gt: ">",
      quot: '"',
      apos: "'",
      amp: "&",
    };
    if (named[e]) return named[e];
    const hex = e[1] === "x" || e[1] === "X";
    return String.fromCodePoint(parseInt(e.slice(hex ? 2 : 1), hex ? 16 : 10));
  });
}

/** Encodes each `/`-separated segment per RFC 3986, as SigV4 expects. */
function encodeKey(key: string): string {
  return key.split("/").map((segment) =>
    encodeURIComponent(segment).replace(
      /[!'()*]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
    )
  ).join("/");
}
