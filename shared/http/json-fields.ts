// Reading the JSON body of one of our own APIs (purge, warm): an object of known fields, lists of strings, each
// refusal a message that says what was expected and what arrived, cut short. Pure; never throws.

/** A value read, or why it was refused. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * `text` as a JSON object whose fields are all among `fields` (`what`: how the refusal names it; `example`: the
 * shape a client should send, shown when the text is not JSON at all).
 */
export function jsonObject<Field extends string>(
  text: string,
  fields: readonly Field[],
  example: string,
): Parsed<Partial<Record<Field, unknown>>> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return {
      ok: false,
      reason: `expected a JSON object like ${example}, got text that is not JSON (${excerpt(text)})`,
    };
  }
  return objectOf(body, 'a JSON object', fields);
}

/** `value` as an object whose fields are all among `fields`; `what` names it in the refusal. */
export function objectOf<Field extends string>(
  value: unknown,
  what: string,
  fields: readonly Field[],
): Parsed<Partial<Record<Field, unknown>>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { ok: false, reason: `expected ${what} with ${fields.join(', ')}, got ${kindOf(value)}` };
  const unknownField = Object.keys(value).find((name) => !(fields as readonly string[]).includes(name));
  if (unknownField !== undefined)
    return { ok: false, reason: `expected only the fields ${fields.join(', ')}, got ${excerpt(unknownField)}` };
  return { ok: true, value: value as Partial<Record<Field, unknown>> };
}

/** A list of non-empty strings of at most `maxLength` characters, trimmed; absent is empty. */
export function stringList(value: unknown, field: string, maxLength: number): Parsed<string[]> {
  if (value === undefined) return { ok: true, value: [] };
  if (!Array.isArray(value))
    return { ok: false, reason: `expected "${field}" to be an array of strings, got ${written(value)}` };
  const list: string[] = [];
  for (const item of value as unknown[]) {
    if (typeof item !== 'string' || item.trim() === '')
      return { ok: false, reason: `expected "${field}" to hold non-empty strings, got ${written(item)}` };
    if (item.length > maxLength)
      return {
        ok: false,
        reason: `expected each of "${field}" to be at most ${maxLength} characters, got ${item.length}`,
      };
    list.push(item.trim());
  }
  return { ok: true, value: list };
}

/** A JSON value as the client wrote it (its JSON text), cut short. */
export function written(value: unknown): string {
  return value === undefined ? 'nothing' : excerpt(JSON.stringify(value) ?? String(value));
}

/** A short, printable excerpt of what arrived. */
export function excerpt(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

/** What kind of JSON value arrived where an object was expected. */
function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  return value === null ? 'null' : typeof value;
}
