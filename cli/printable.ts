// Text from the wire made safe for a terminal: control characters (an escape sequence could
// rewrite the screen) shown as `\xNN`. Hosts, keys and error bodies are what clients and
// servers sent; every cell and every quoted answer the commands print passes through here.

export function printable(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}
