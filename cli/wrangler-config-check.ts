// What Cloudflare documents as invalid in a wrangler configuration that wrangler itself lets through: found before a
// deploy, not by it. Pure: a configuration in, sentences out.

/** The page that says `exports` and `migrations` cannot be used together. */
export const EXPORTS_OR_MIGRATIONS_DOC =
  'https://developers.cloudflare.com/durable-objects/reference/durable-object-class-migrations-legacy/';

/** The part of a wrangler configuration the checks read. */
export interface CheckedConfig {
  name?: unknown;
  exports?: unknown;
  migrations?: unknown;
  durable_objects?: unknown;
}

/**
 * What Cloudflare documents as invalid in `config`, as sentences; none for a valid one.
 *
 * "You cannot use both `exports` and `migrations` in the same Worker configuration — they are mutually exclusive"
 * (EXPORTS_OR_MIGRATIONS_DOC): any `exports` at all, where wrangler 4.116's own check refuses the pair only when an
 * export is a Durable Object, so a Worker with Workers Cache entrypoints and a `migrations` array builds with
 * `--dry-run` and only a real deploy would tell. And a Durable Object class the Worker binds from its own script
 * (no `script_name`) must be a live `durable-object` export once `exports` declares the lifecycle
 * (developers.cloudflare.com/durable-objects/reference/durable-objects-migrations/).
 */
export function wranglerConfigProblems(config: CheckedConfig): string[] {
  const problems: string[] = [];
  const name = typeof config.name === 'string' ? config.name : 'the worker';
  const exports = isRecord(config.exports) ? config.exports : {};
  const migrations = Array.isArray(config.migrations) ? config.migrations : [];
  if (Object.keys(exports).length > 0 && migrations.length > 0)
    problems.push(
      `${name}: \`exports\` and \`migrations\` together, which Cloudflare's docs forbid ("You cannot use both \`exports\` and \`migrations\` in the same Worker configuration", ${EXPORTS_OR_MIGRATIONS_DOC}): declare the Durable Object classes in \`exports\` and drop \`migrations\``,
    );
  if (migrations.length === 0) {
    for (const className of ownDurableObjectClasses(config.durable_objects)) {
      const entry = exports[className];
      const live =
        isRecord(entry) &&
        entry.type === 'durable-object' &&
        (entry.state === undefined || entry.state === 'created' || entry.state === 'expecting-transfer');
      if (!live)
        problems.push(
          `${name}: binds the Durable Object class ${className} of its own script, which neither \`exports\` (as a live \`durable-object\`) nor \`migrations\` declares`,
        );
    }
  }
  return problems;
}

/** The classes a configuration binds from its own script (a binding without `script_name`). */
function ownDurableObjectClasses(durableObjects: unknown): string[] {
  if (!isRecord(durableObjects) || !Array.isArray(durableObjects.bindings)) return [];
  return durableObjects.bindings.flatMap((binding: unknown) =>
    isRecord(binding) && binding.script_name === undefined && typeof binding.class_name === 'string'
      ? [binding.class_name]
      : [],
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
