// Counts the lines this process prints that match a pattern (the runtime's output passes through it: Miniflare
// writes workerd's stdout and stderr here), every byte still printed as it was.

export interface LineCount {
  count(): number;
  /** Puts the streams' own write back. */
  stop(): void;
}

/** `heard`, when given, hears each matching line as it is printed. */
export function countOutputLines(pattern: RegExp, heard?: (line: string) => void): LineCount {
  let count = 0;
  const restore = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write;
    let partial = '';
    stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
      const text = partial + (typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      const lines = text.split('\n');
      partial = (lines.pop() ?? '').slice(-4096);
      const matching = lines.filter((line) => pattern.test(line));
      count += matching.length;
      for (const line of matching) heard?.(line);
      return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as NodeJS.WriteStream['write'];
    return () => {
      stream.write = write;
    };
  });
  return {
    count: () => count,
    stop: () => {
      for (const undo of restore) undo();
    },
  };
}
