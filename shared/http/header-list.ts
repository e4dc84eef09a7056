// The comma-separated list form of a field value (RFC 9110 §5.6.1), split on the commas that are not
// inside a quoted-string (§5.6.4) or sf-string (RFC 8941 §4.2.5).

export function splitList(value: string): string[] {
  // §5.6.1: a recipient drops empty members.
  return splitOutsideQuotes(value, ',')
    .map((member) => member.trim())
    .filter((member) => member.length > 0);
}

/**
 * `value` split on each `separator` that is not inside a quoted-string (§5.6.4) or sf-string (RFC 8941 §4.2.5), the
 * parts as they are (untrimmed, empty ones kept): a list's members (`,`), a member's parameters (`;`).
 */
export function splitOutsideQuotes(value: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const char = value[i] ?? '';
    // In both a quoted-string and an sf-string, a backslash escapes the next character.
    if (quoted && char === '\\') {
      current += char + (value[i + 1] ?? '');
      i++;
      continue;
    }
    if (char === '"') quoted = !quoted;
    if (char === separator && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}
