// The token and scope the playlist tests carry: a folder token for /video/ep1/ under SIGNED_PREFIXES=/video/ in a
// bucket, judged as the edge judges it (shared/admission/protected-paths.ts grants, on the canonical path).

import { grants, ProtectedPaths } from '../../../shared/admission/protected-paths.ts';
import type { Scope } from '../../../shared/admission/signed-token.ts';
import type { TokenCarry } from '../../../shared/playlists/playlist-token.ts';
import { normalizePath } from '../../../shared/request/canonical-path.ts';

export const TOKEN = `tc_prefix=%2Fvideo%2Fep1%2F&tc_exp=2000000000&tc_kid=k1&tc_sig=${'A'.repeat(43)}`;
export const PLAYLIST = `https://cdn.example/video/ep1/index.m3u8?${TOKEN}`;

const scope: Scope = { kind: 'prefix', path: '/video/ep1/' };
const scopePath = new ProtectedPaths(['/video/'], 's3').scopePath(scope);

/** Whether the token admits a request for `url`: the scope's grant of its canonical path. */
export function granted(url: URL): boolean {
  return scopePath !== undefined && grants(scope, scopePath, normalizePath(url.pathname));
}

export function carry(playlistUrl = PLAYLIST): TokenCarry {
  return { playlistUrl, token: TOKEN, grants: granted };
}
