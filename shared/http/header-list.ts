// The comma-separated list form of a field value (RFC 9110 §5.6.1), split on the commas that are not
// inside a quoted-string (§5.6.4) or sf-string (RFC 8941 §4.2.5).

export function splitList(value: string): string[] {
  const members: string[] = [];
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
    if (char === ',' && !quoted) {
      members.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  members.push(current);
  // §5.6.1: a recipient drops empty members.
  return members.map((member) => member.trim()).filter((member) => member.length > 0);
}
