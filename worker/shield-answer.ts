// What the edge takes from the shield's answer to a slice request: its framing read (the marks, the span field, the
// Content-Length) and checked as every hop checks a slice (shared/hop/slice-check.ts); what is another version, and
// what the shield's failure.

import { checkSlice, checkVersion, type SliceStatement, wholeMeansAnotherVersion } from '../shared/hop/slice-check.ts';
import { SPAN_HEADER, WHOLE } from '../shared/hop/slice-protocol.ts';
import { statedLength } from '../shared/http/body-length.ts';
import { NextHopFailed, VersionChanged } from '../shared/http/errors.ts';
import { isStrongEtag } from '../shared/http/etag.ts';
import {
  OBJECT_HEADER,
  type ObjectMarks,
  type ObjectMeta,
  PIN_HEADER,
  parseObjectMarker,
  readMarks,
  representationHeaders,
} from '../shared/slices/object-meta.ts';
import { type ObjectVersion, type SliceSpan, sliceCount, spanBytes } from '../shared/slices/slice-plan.ts';
import { nativeBody } from '../shared/streams/native-body.ts';
import { responseAsIs } from '../shared/streams/response-as-is.ts';
import type { UpstreamAnswer } from '../shared/tier/ports.ts';

/**
 * The shield's answer to a request for `span` (of `pinned`, when given; from byte `from` of it), as the read path takes
 * it.
 */
export async function readShieldAnswer(
  response: Response,
  span: SliceSpan,
  pinned: ObjectVersion | undefined,
  sliceSize: number,
  from: number,
): Promise<UpstreamAnswer> {
  const fail = async (why: string): Promise<never> => {
    await response.body?.cancel();
    throw new VersionChanged(why);
  };
  if (response.status === 412) return fail('the shield no longer has the pinned version');
  const marker = response.headers.get(OBJECT_HEADER);
  const described = shieldMarks(response.headers);
  if (described === undefined) {
    if (pinned !== undefined) return notTheSlice(response, pinned, marker);
    // A marked answer we cannot read is no whole object: never serve a slice as one.
    if (marker !== null && marker !== WHOLE)
      return fail(`the shield marked its answer ${marker} (${response.headers.get(PIN_HEADER) ?? 'no pin'})`);
    // Not sliced (the whole object, marked), or an error the shield answered with.
    const headers = new Headers(response.headers);
    headers.delete(OBJECT_HEADER);
    return { kind: 'whole', response: responseAsIs(response.body, { status: response.status, headers }) };
  }
  // The pinned version is the marks' (object-meta.ts): the ETag field is the representation's, as served.
  const meta: ObjectMeta = { ...described, headers: representationHeaders(response.headers) };
  if (meta.sliceSize !== sliceSize) return fail(`the shield described the object as ${marker}`);
  const stated = shieldStatement(response, meta, from);
  if (response.status === 416) {
    const version = checkVersion(pinned, stated);
    if (!version.ok) return fail(`${version.why} from the shield`);
    await response.body?.cancel();
    return { kind: 'beyond', meta, response };
  }
  const last = Math.min(span.last, sliceCount(meta.size, sliceSize) - 1);
  const bytes = spanBytes({ first: span.first, last }, sliceSize, meta.size);
  const asked = { bytes: { start: bytes.start + from, end: bytes.end }, status: 200, exactLength: true };
  const check = checkSlice(asked, pinned, response.status, stated);
  if (!check.ok) return fail(`${check.why} from the shield`);
  // Its Content-Length is exactly the span's (checked): the runtime may move it by itself.
  return { kind: 'span', meta, span: { first: span.first, last }, body: nativeBody(check.body), response };
}

/**
 * What the shield's answer states of itself: the version its marks name, the bytes its span field names (from the
 * offset asked, which the field does not repeat) and its Content-Length. A span field naming no slices of the object
 * names no bytes.
 */
function shieldStatement(
  response: Response,
  meta: ObjectMeta,
  from: number,
): SliceStatement<ReadableStream<Uint8Array>> {
  const named = /^(0|[1-9]\d{0,8})-(0|[1-9]\d{0,8})$/.exec(response.headers.get(SPAN_HEADER) ?? '');
  const first = Number(named?.[1]);
  const last = Number(named?.[2]);
  const ofTheObject = named !== null && first <= last && last < sliceCount(meta.size, meta.sliceSize);
  const bytes = ofTheObject ? spanBytes({ first, last }, meta.sliceSize, meta.size) : undefined;
  return {
    etag: meta.etag,
    size: meta.size,
    range: bytes && { start: bytes.start + from, end: bytes.end },
    length: statedLength(response.headers.get('content-length')),
    body: response.body,
  };
}

/**
 * The marks on a shield's answer; a shield of the release before the pin had its own field
 * sends none, and its ETag field is the pin then (it was strong, or the shield did not slice).
 */
function shieldMarks(headers: Headers): ObjectMarks | undefined {
  const marks = readMarks(headers);
  if (marks !== undefined || headers.has(PIN_HEADER)) return marks;
  const marker = parseObjectMarker(headers.get(OBJECT_HEADER));
  const etag = headers.get('etag');
  return marker !== undefined && isStrongEtag(etag) ? { ...marker, etag } : undefined;
}

/**
 * The shield's answer to a slice of the pinned version that is not one. Evidence of another
 * version (the object answered whole: no longer sliced; 404 or 410: no longer there) is a
 * VersionChanged, which forgets the manifest; anything else (a 5xx, a 429) is the shield's
 * failure, which says nothing of the version: this request fails and the manifest stays.
 */
async function notTheSlice(response: Response, pinned: ObjectVersion, marker: string | null): Promise<never> {
  await response.body?.cancel();
  if (wholeMeansAnotherVersion(response.status)) {
    throw new VersionChanged(
      `the shield answered ${response.status} (${marker ?? 'unmarked'}) for a slice of ${pinned.etag}`,
    );
  }
  throw new NextHopFailed(response.status, response.headers.get('retry-after'));
}
