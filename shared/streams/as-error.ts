// A rejection's reason as an Error: what a read that failed with anything at all failed with.

/** `reason` itself when it is an Error, else an Error saying it. */
export function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}
