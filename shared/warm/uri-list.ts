// The URIs a playlist names, collected as its extractor finds them (playlist-uris.ts, dash-uris.ts): each resolved
// against the playlist or its base URL, kept once, in the order named, and no more of them than the caller allows.

/** What a playlist names, as absolute URLs (href), each once, in the order it names them. */
export interface PlaylistUris {
  /** Playlists it names (an HLS master's variant streams and renditions): each is read in turn for its own. */
  playlists: string[];
  /** Media it names: segments, initialization sections (EXT-X-MAP, DASH's Initialization), keys. */
  media: string[];
  /** References that resolve to no URL, as written (reported, never fetched). */
  unreadable: string[];
}

/** Why a playlist names nothing that can be warmed. */
export interface PlaylistProblem {
  error: string;
}

/** URIs collected once each, in order, resolved against the playlist; at most `limit`. */
export class UriList {
  private readonly seen = new Set<string>();
  private readonly found: PlaylistUris = { playlists: [], media: [], unreadable: [] };
  private readonly base: URL;
  private readonly limit: number;
  /** Where each group of media starts (a DASH Representation's segments): indices into the media list. */
  private readonly starts: number[] = [];
  full = false;

  constructor(base: URL, limit: number) {
    this.base = base;
    this.limit = limit;
  }

  /** `reference` resolved against `base` (the playlist's URL, or a DASH BaseURL), added to `list`. */
  add(list: 'playlists' | 'media', reference: string, base: URL = this.base): void {
    if (this.full) return;
    const url = URL.canParse(reference, base.href) ? new URL(reference, base) : undefined;
    const href = url === undefined ? undefined : withoutFragment(url);
    const key = href ?? `unreadable ${reference}`;
    if (this.seen.has(key)) return;
    if (this.seen.size >= this.limit) {
      this.full = true;
      return;
    }
    this.seen.add(key);
    if (href === undefined) this.found.unreadable.push(reference.slice(0, 200));
    else this.found[list].push(href);
  }

  uris(): PlaylistUris {
    return this.found;
  }

  /** The media added after this call are a group of their own: one rendition's, in the order it reads them. */
  group(): void {
    this.starts.push(this.found.media.length);
  }

  /** The media in their groups, each in order (those before the first group() are none's); empty groups left out. */
  groups(): string[][] {
    const { media } = this.found;
    return this.starts
      .map((start, i) => media.slice(start, this.starts[i + 1] ?? media.length))
      .filter((group) => group.length > 0);
  }
}

/** A URL without its fragment (RFC 3986 §3.5: never sent, so never a different object). */
function withoutFragment(url: URL): string {
  url.hash = '';
  return url.href;
}
