// What the commands print of what came over the wire (cli/printable.ts): no raw control characters.

import { describe, expect, it } from 'vitest';
import { printable } from '../../cli/printable.ts';

describe('printable', () => {
  it('shows control characters as \\xNN and leaves other text alone', () => {
    expect(printable('a\u001b[31mb\r\n\u009bc\u007f')).toBe('a\\x1b[31mb\\x0d\\x0a\\x9bc\\x7f');
    expect(printable('/café/ü.png — ok')).toBe('/café/ü.png — ok');
  });
});
