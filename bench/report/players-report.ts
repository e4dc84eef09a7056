// bench:players' table and verdicts: per way of playing, whether the player played, seeked and played on from the
// signed playlist URL alone (no cookie, every answer 2xx), whether the origin sent each segment once, and whether
// the token opened anything outside its folder. Pure.

import type { PlayerCase, Renditions } from '../setup/player-renditions.ts';
import { PLAY_SECONDS, type Playback, SEEK_AT } from '../workloads/player-script.ts';
import { describeMachine, formatTable, machine } from './results.ts';

export interface CaseResult {
  name: string;
  player: PlayerCase['player'];
  /** The playlist URL the player was given, its signature elided. */
  url: string;
  playback: Playback;
  /** Every request the page made to the stack. */
  requests: { path: string; status: number; cookie: boolean }[];
  /** The origin's answers for each segment or init section the case names. */
  origin: { path: string; size: number; answers: number; sentBytes: number; repeatedBytes: number }[];
  /** The other folders' playlists and first segments, asked for with this case's token. */
  outside: { path: string; status: number }[];
}

const MB = 1e6;

/** The report's Markdown, its JSON, and whether any case failed its checks. */
export function playersReport(
  startedAt: Date,
  browser: string,
  versions: { hls: string; dash: string },
  renditions: Renditions,
  results: readonly CaseResult[],
): { markdown: string; json: unknown; failed: boolean } {
  const verdicts = results.map(verdict);
  const table = {
    columns: [
      'case',
      'player',
      'played, seeked, played on',
      'page’s requests (statuses)',
      'cookies sent',
      'origin: answers per medium',
      'origin bytes ÷ media bytes',
      'each medium once',
      'token outside its folder',
    ],
    rows: results.map((r, i) => {
      const v = verdicts[i] ?? verdict(r);
      return [
        r.name,
        `${r.player} ${r.player === 'hls.js' ? versions.hls : versions.dash}`,
        r.playback.error ??
          `${v.played ? 'yes' : 'NO'}: ${r.playback.played ?? ''} (seek to ${r.playback.seekTo?.toFixed(1)} s)`,
        `${r.requests.length} (${statusCounts(r.requests.map((q) => q.status))})`,
        String(r.requests.filter((q) => q.cookie).length),
        `${r.origin.length} media: ${[...new Set(r.origin.map((o) => o.answers))].join(', ')}`,
        `${(v.originBytes / MB).toFixed(2)} MB ÷ ${(v.mediaBytes / MB).toFixed(2)} MB = ${(v.originBytes / v.mediaBytes).toFixed(3)}`,
        v.once ? 'yes' : 'NO',
        `${r.outside.length} asked: ${statusCounts(r.outside.map((o) => o.status))}`,
      ];
    }),
  };
  const markdown = [
    `# Players handed a signed playlist URL alone, ${startedAt.toISOString()}`,
    '',
    `${describeMachine(machine())}; ${browser}; hls.js ${versions.hls}, dash.js ${versions.dash}.`,
    '',
    `\`npm start\` as a process (\`ORIGIN_KIND=http\`, \`SIGNED_PREFIXES=/video/\`, \`CORS_ALLOW_ORIGINS\` the page's origin) in front of an origin holding local/sample-video.mp4 (${renditions.duration.toFixed(0)} s of H.264 at 720p) remuxed four ways, each in a folder of its own (bench/setup/player-renditions.ts). Headless Chromium opens a page on another origin with hls.js and dash.js from node_modules, and gives the player the playlist's URL with a folder token (\`tc_prefix\`) in its query and no cookie: it plays ${PLAY_SECONDS} s, seeks to ${SEEK_AT * 100} % of the duration and plays ${PLAY_SECONDS} s more. Counted once the origin is silent: every request the page made to the CDN and its status; the origin's answers for each segment and init section (as a counting proxy in front of it saw them); each other folder's playlist and first segment asked for with this case's token.`,
    '',
    formatTable(table),
    '',
    ...results.map((r) => `- ${r.name}: \`${r.url}\``),
    '',
  ].join('\n');
  const json = { benchmark: 'players', startedAt: startedAt.toISOString(), browser, versions, results, verdicts };
  return { markdown, json, failed: verdicts.some((v) => !v.played || !v.once || !v.closed || !v.allOk) };
}

interface Verdict {
  /** Played, seeked and played on, with no error. */
  played: boolean;
  /** Every answer the page got 2xx (or a 304), and no request carried a cookie. */
  allOk: boolean;
  /** Every medium from the origin once at most, no byte twice. */
  once: boolean;
  /** Every request outside the folder refused. */
  closed: boolean;
  originBytes: number;
  mediaBytes: number;
}

function verdict(r: CaseResult): Verdict {
  const p = r.playback;
  const played =
    p.error === undefined &&
    p.seekTo !== undefined &&
    p.endedAt !== undefined &&
    (p.startedAt ?? 0) >= PLAY_SECONDS &&
    p.endedAt >= p.seekTo + PLAY_SECONDS;
  return {
    played,
    allOk:
      r.requests.every((q) => (q.status >= 200 && q.status < 300) || q.status === 304) &&
      r.requests.every((q) => !q.cookie),
    once: r.origin.every((o) => o.repeatedBytes === 0 && o.sentBytes <= o.size),
    closed: r.outside.length > 0 && r.outside.every((o) => o.status === 403),
    originBytes: r.origin.reduce((n, o) => n + o.sentBytes, 0),
    mediaBytes: r.origin.reduce((n, o) => n + o.size, 0),
  };
}

function statusCounts(statuses: readonly number[]): string {
  const counts = new Map<number, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${n}× ${status}`).join(', ');
}
