// What bench:players asks of a player in the page (bench/setup/player-page.ts): load a signed playlist URL with
// hls.js or dash.js, play, seek, play on; the page's answer as a value. The script is text the page evaluates.

/** Where the seek lands, as a share of the video's duration: past what a player buffers at first. */
export const SEEK_AT = 0.7;
/** Seconds played before the seek, and after it. */
export const PLAY_SECONDS = 2;
const STEP_MS = 30_000;

/** What the page says: where it played, or why it could not. */
export interface Playback {
  duration?: number;
  /** currentTime once it had played the first seconds, where it seeked to, and where it was at the end. */
  startedAt?: number;
  seekTo?: number;
  endedAt?: number;
  /** The video's played ranges. */
  played?: string;
  error?: string;
}

/** The page's script: plays `url` with `player`, returning a Playback. */
export function playerScript(player: 'hls.js' | 'dash.js', url: string): string {
  return `(async () => {
    const video = document.querySelector('video');
    video.muted = true;
    let failed;
    const until = (test, what) => new Promise((resolve, reject) => {
      const started = Date.now();
      const poll = () => {
        if (failed) return reject(new Error(failed));
        if (video.error) return reject(new Error('media error ' + video.error.code + ' ' + video.error.message));
        if (test()) return resolve();
        if (Date.now() - started > ${STEP_MS}) return reject(new Error('no ' + what + ' in ${STEP_MS / 1000} s, at ' + video.currentTime.toFixed(2) + ' s'));
        setTimeout(poll, 50);
      };
      poll();
    });
    let stop;
    if (${JSON.stringify(player)} === 'hls.js') {
      const hls = new Hls();
      hls.on(Hls.Events.ERROR, (_, data) => { if (data.fatal) failed = 'hls.js: ' + data.type + ' ' + data.details + (data.response ? ' (' + data.response.code + ')' : ''); });
      hls.loadSource(${JSON.stringify(url)});
      hls.attachMedia(video);
      stop = () => hls.destroy();
    } else {
      const dash = dashjs.MediaPlayer().create();
      dash.on(dashjs.MediaPlayer.events.ERROR, (e) => { failed = 'dash.js: ' + JSON.stringify(e.error ?? e).slice(0, 200); });
      dash.initialize(video, ${JSON.stringify(url)}, false);
      stop = () => dash.reset();
    }
    try {
      await until(() => video.readyState >= 1 && video.duration > 0, 'metadata');
      await video.play();
      await until(() => video.currentTime >= ${PLAY_SECONDS}, 'first ${PLAY_SECONDS} s played');
      const startedAt = video.currentTime;
      const seekTo = video.duration * ${SEEK_AT};
      video.currentTime = seekTo;
      await until(() => !video.seeking && video.currentTime >= seekTo, 'seek done');
      await until(() => video.currentTime >= seekTo + ${PLAY_SECONDS}, '${PLAY_SECONDS} s played after the seek');
      const played = [];
      for (let i = 0; i < video.played.length; i++) played.push(video.played.start(i).toFixed(1) + '–' + video.played.end(i).toFixed(1) + ' s');
      return { duration: video.duration, startedAt, seekTo, endedAt: video.currentTime, played: played.join(', ') };
    } catch (error) {
      return { error: String(error.message ?? error) };
    } finally {
      stop();
    }
  })()`;
}
