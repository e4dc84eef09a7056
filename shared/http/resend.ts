// When a tier sends a request to its next hop once more (the edge to the shield, the shield to the origin): its
// connection failed before any answer, and sending it again loses nothing (Varnish and nginx retry a failed reused
// backend connection likewise). The caller says what the request is and how to send it.

/**
 * Attempts in all. Over a pool of kept-alive connections a failure before any answer is not rare: workerd's HTTP client
 * keeps an idle connection for 5 s and its server closes one idle for 5 s (kj's HttpClientSettings idleTimeout,
 * HttpServerSettings pipelineTimeout), so a request sent as those 5 s end may go out on a connection the shield has
 * just closed: "Network connection lost" (reproduced between two local workerd processes, 8 requests every ~5 s;
 * seen as a 502 shield-unreachable in bench:stalled). The next attempt may take another connection as old, returned
 * to the pool with the first, closed too: at the second location, 8 requests every 4.88–5 s failed 18 times in 320
 * with one attempt, 2 with two, 3 with three (so two: a third buys nothing measurable).
 */
export const RESEND_ATTEMPTS = 2;

/**
 * A request sent again without loss (RFC 9112 §9.3.1: a client may retransmit an idempotent request whose connection
 * closed first): a GET or a HEAD without a body, so none was spent by the failed attempt.
 */
export function resendable(method: string, body: BodyInit | null | undefined): boolean {
  return (method === 'GET' || method === 'HEAD') && (body === undefined || body === null);
}

/** `send()`, again while it throws, `resend` allows, `givenUp()` is false and attempts remain; else its error. */
export async function withResend<T>(send: () => Promise<T>, resend: boolean, givenUp: () => boolean): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (!resend || givenUp() || attempt >= RESEND_ATTEMPTS) throw error;
    }
  }
}
