// A V8 CPU profile of one isolate in workerd, over the inspector protocol (workerd's inspector,
// opened by Miniflare's inspectorPort): where a worker's time goes, by function, self time.

export interface ProfileLine {
  /** `function file:line`, or V8's own entries: `(program)`, `(garbage collector)`, `(idle)`. */
  frame: string;
  /** Self time, microseconds in all. */
  selfUs: number;
}

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Profiles the isolate at `webSocketUrl` (e.g. `ws://127.0.0.1:9229/core:user:edge`) while `during` runs. */
export async function profileIsolate(
  webSocketUrl: string,
  during: () => Promise<void>,
  samplingIntervalUs = 50,
): Promise<ProfileLine[]> {
  const socket = new WebSocket(webSocketUrl);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error(`could not open the inspector at ${webSocketUrl}`)), {
      once: true,
    });
  });
  let nextId = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  });
  const send = (method: string, params: Record<string, unknown> = {}): Promise<unknown> =>
    new Promise((resolve) => {
      const id = ++nextId;
      waiting.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    await send('Profiler.enable');
    await send('Profiler.setSamplingInterval', { interval: samplingIntervalUs });
    await send('Profiler.start');
    await during();
    const { profile } = (await send('Profiler.stop')) as { profile: Profile };
    return selfTimes(profile);
  } finally {
    socket.close();
  }
}

/** Self time per frame, largest first. */
function selfTimes(profile: Profile): ProfileLine[] {
  const frames = new Map(profile.nodes.map((node) => [node.id, frameName(node.callFrame)]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const frame = frames.get(id) ?? '(unknown)';
    totals.set(frame, (totals.get(frame) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return [...totals].map(([frame, selfUs]) => ({ frame, selfUs })).sort((a, b) => b.selfUs - a.selfUs);
}

function frameName(frame: CallFrame): string {
  const file = frame.url.split('/').pop() ?? '';
  if (file === '') return frame.functionName || '(native)';
  return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}
