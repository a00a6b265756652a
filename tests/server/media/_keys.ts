/**
 * Keys the local media storage refuses (not a safe relative file path),
 * shared by the storage contract and the local storage's own tests.
 *
 * @module
 */

/** Empty, absolute, traversing, hidden or control-character keys. */
export const UNSAFE_LOCAL_KEYS: readonly string[] = [
  "",
  "../x.png",
  "a/../../x.png",
  "/etc/x.png",
  "a\\b.png",
  "a\0b.png",
  "a//b.png",
  "a/",
  ".",
  "a/./b",
  ".hidden",
  "a/.b.png.type",
  "a\nb",
  "x".repeat(1025),
];
