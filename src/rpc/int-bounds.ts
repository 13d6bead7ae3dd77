/** Go's 64-bit integer bounds, which both interfaces' codecs and the node's config keys check against. */
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
export const UINT64_MAX = 2n ** 64n - 1n;
