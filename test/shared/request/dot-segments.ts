// RFC 3986 §5.2.4's remove_dot_segments as the RFC writes it, step by step over an input buffer: the oracle the
// tests of every path reading (reserved paths, protected prefixes) check shared/request/reserved-paths.ts against.

/** RFC 3986 §5.2.4, the RFC's own steps (2A to 2E). */
export function removeDotSegments(path: string): string {
  let input = path;
  let output = '';
  const dropLast = (): void => {
    output = output.slice(0, Math.max(0, output.lastIndexOf('/')));
  };
  while (input.length > 0) {
    if (input.startsWith('../')) input = input.slice(3);
    else if (input.startsWith('./')) input = input.slice(2);
    else if (input.startsWith('/./')) input = input.slice(2);
    else if (input === '/.') input = '/';
    else if (input.startsWith('/../')) {
      input = input.slice(3);
      dropLast();
    } else if (input === '/..') {
      input = '/';
      dropLast();
    } else if (input === '.' || input === '..') input = '';
    else {
      const segment = /^\/?[^/]*/.exec(input)?.[0] ?? input;
      output += segment;
      input = input.slice(segment.length);
    }
  }
  return output;
}
