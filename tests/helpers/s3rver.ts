/**
 * Starts a real S3 protocol server (s3rver 5, which checks SigV4 signatures)
 * on 127.0.0.1 with a temp directory and one bucket.
 *
 * @module
 */
import S3rver from "s3rver";

/** A running s3rver and what a client needs to reach it. */
export interface S3rverHandle extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  /** The bucket that exists. */
  bucket: string;
  /** Valid credentials (s3rver's built-in account). */
  accessKeyId: string;
  /** Valid secret for `accessKeyId`. */
  secretAccessKey: string;
  /** The directory s3rver stores objects in. */
  directory: string;
  /** Stops the server and removes its directory. */
  close(): Promise<void>;
}

/** Options of {@linkcode startS3rver}. */
export interface S3rverOptions {
  /** The bucket to create. Default `"media"`. */
  bucket?: string;
  /**
   * Host suffix for virtual-hosted buckets (`<bucket>.s3.<serviceEndpoint>`).
   * Default s3rver's `amazonaws.com`.
   */
  serviceEndpoint?: string;
  /** Accept requests whose signature does not match. Default `false`. */
  allowMismatchedSignatures?: boolean;
}

/**
 * Starts s3rver. s3rver 5 knows exactly one key pair, `S3RVER`/`S3RVER`
 * (its `DUMMY_ACCOUNT`), and rejects any other signature with
 * `SignatureDoesNotMatch`.
 */
export async function startS3rver(
  options: S3rverOptions = {},
): Promise<S3rverHandle> {
  const { bucket = "media", ...rest } = options;
  const directory = await Deno.makeTempDir({ prefix: "s3rver-" });
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
    ...rest,
  });
  let port: number;
  try {
    ({ port } = await server.run());
  } catch (err) {
    await Deno.remove(directory, { recursive: true });
    throw err;
  }
  const close = async () => {
    // Without this, close() waits for the clients' idle keep-alive
    // connections to time out (minutes, seen under load).
    (server as unknown as { httpServer?: { closeAllConnections?(): void } })
      .httpServer?.closeAllConnections?.();
    await server.close();
    await Deno.remove(directory, { recursive: true });
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    directory,
    close,
    [Symbol.asyncDispose]: close,
  };
}
