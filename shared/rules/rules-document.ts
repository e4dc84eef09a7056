// Reading RULES (a JSON array of rules, docs/rules.md) into Rules, once, at start and at deploy: every field that
// cannot work is refused with a ConfigError naming RULES, the rule and the field, all of them at once.

import { ConfigError } from '../http/errors.ts';
import { normalizePath } from '../request/canonical-path.ts';
import {
  type HeaderEdits,
  type KeyQuery,
  NO_RULES,
  REDIRECT_STATUSES,
  RULE_METHODS,
  type Rule,
  type RuleFreshness,
  type RuleMatch,
  type RuleMethod,
  type RuleRedirect,
  type Rules,
} from './rules.ts';

/** The fields a rule may have (docs/rules.md). */
export const RULE_FIELDS = [
  'name',
  'match',
  'edgeTtl',
  'override',
  'staleWhileRevalidate',
  'staleIfError',
  'browserCacheControl',
  'headers',
  'bypass',
  'redirect',
  'spaFallback',
  'cacheKeyQuery',
] as const;
const MATCH_FIELDS = ['host', 'path', 'extension', 'method'] as const;
const REDIRECT_FIELDS = ['status', 'location', 'preservePathSuffix', 'preserveQuery'] as const;
const HEADER_FIELDS = ['set', 'add', 'remove'] as const;
/** A day short of 100 years: more is no longer a TTL anyone means. */
const MAX_SECONDS = 3_153_600_000;
/** RFC 9110 §5.1 token: a field name. */
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 9110 §5.5: no CR, LF or NUL in a field value, and no leading or trailing whitespace. */
const FIELD_VALUE = /^[^\r\n\0\s](?:[^\r\n\0]*[^\r\n\0\s])?$/;
/** Names appear in Cache-Status `detail` (RFC 9211 §2.8: a token or string); kept to what reads well there. */
const RULE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Fields a client's answer must not get from a rule: framing and the tiers' own report (RFC 9110 §6.4). */
const UNEDITABLE = new Set(['content-length', 'transfer-encoding', 'content-range', 'connection', 'cache-status']);

type Json = null | boolean | number | string | Json[] | { [name: string]: Json };
type JsonObject = { [name: string]: Json };

/** RULES, or no rules when it is unset or empty. */
export function parseRules(value: string | undefined): Rules {
  if (value === undefined || value.trim() === '') return NO_RULES;
  let document: Json;
  try {
    document = JSON.parse(value) as Json;
  } catch (error) {
    throw new ConfigError(`RULES must be a JSON array of rules: ${(error as Error).message}`);
  }
  if (!Array.isArray(document)) throw new ConfigError('RULES must be a JSON array of rules');
  const problems: string[] = [];
  const list: Rule[] = [];
  const names = new Set<string>();
  for (const [index, item] of document.entries()) {
    const reader = new RuleReader(index, item, problems);
    const rule = reader.rule();
    if (rule === undefined) continue;
    if (names.has(rule.name)) reader.problem('name', `repeats rule name ${JSON.stringify(rule.name)}`);
    names.add(rule.name);
    list.push(rule);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { list };
}

/** One rule's fields, each refusal kept with where it was. */
class RuleReader {
  readonly #index: number;
  readonly #item: Json;
  readonly #problems: string[];
  #name: string | undefined;

  constructor(index: number, item: Json, problems: string[]) {
    this.#index = index;
    this.#item = item;
    this.#problems = problems;
  }

  problem(field: string, what: string): void {
    const which = this.#name === undefined ? `rule ${this.#index + 1}` : `rule ${this.#index + 1} (${this.#name})`;
    // Quoted as JSON: a field the document made up may hold a quote or a line break.
    this.#problems.push(`RULES ${which}: field ${JSON.stringify(field)} ${what}`);
  }

  rule(): Rule | undefined {
    const item = this.#item;
    if (!isObject(item)) {
      this.problem('(rule)', 'must be an object');
      return undefined;
    }
    const before = this.#problems.length;
    const name = item.name;
    if (typeof name === 'string' && RULE_NAME.test(name)) this.#name = name;
    else this.problem('name', 'must be 1–64 letters, digits, `.`, `_` or `-`, starting with a letter or digit');
    this.unknownFields(item, RULE_FIELDS, '');
    const rule: Rule = { name: this.#name ?? '', match: this.match(item.match) };
    const freshness = this.freshness(item);
    if (freshness !== undefined) rule.freshness = freshness;
    const browser = this.fieldValue(item.browserCacheControl, 'browserCacheControl');
    if (browser !== undefined) rule.browserCacheControl = browser;
    if (item.headers !== undefined) rule.headers = this.headers(item.headers);
    if (item.bypass !== undefined) rule.bypass = this.boolean(item.bypass, 'bypass');
    if (item.redirect !== undefined) rule.redirect = this.redirect(item.redirect);
    if (item.spaFallback !== undefined) rule.spaFallback = this.path(item.spaFallback, 'spaFallback');
    if (item.cacheKeyQuery !== undefined) rule.cacheKeyQuery = this.keyQuery(item.cacheKeyQuery);
    this.coherent(rule);
    return this.#problems.length > before ? undefined : rule;
  }

  /** Combinations that cannot mean anything, or would make a stored answer depend on what is outside its key. */
  private coherent(rule: Rule): void {
    const storing = rule.freshness !== undefined || rule.spaFallback !== undefined || rule.cacheKeyQuery !== undefined;
    if (rule.match.methods !== undefined && storing) {
      this.problem(
        'match.method',
        'only goes with bypass, redirect, headers or browserCacheControl: GET and HEAD share a stored answer',
      );
    }
    if (rule.freshness?.override === true && rule.freshness.ttl === undefined) {
      this.problem('override', 'needs edgeTtl: the TTL that overrides the origin’s');
    }
    if (rule.bypass === true && storing)
      this.problem('bypass', 'stores nothing: edgeTtl, spaFallback and cacheKeyQuery mean nothing beside it');
    if (rule.redirect?.preservePathSuffix === true) {
      const paths = rule.match.paths ?? [];
      if (paths.length === 0 || !paths.every((path) => path.indexOf('*') === path.length - 1)) {
        this.problem('redirect.preservePathSuffix', 'needs every match.path to end in its only `*` (`/old/*`)');
      }
    }
  }

  private match(value: Json | undefined): RuleMatch {
    if (value === undefined) return {};
    if (!isObject(value)) {
      this.problem('match', 'must be an object of host, path, extension and method');
      return {};
    }
    this.unknownFields(value, MATCH_FIELDS, 'match.');
    const match: RuleMatch = {};
    const hosts = this.strings(value.host, 'match.host');
    if (hosts !== undefined) match.hosts = hosts.map((host) => this.host(host));
    const paths = this.strings(value.path, 'match.path');
    if (paths !== undefined) match.paths = paths.map((path) => this.pattern(path));
    const extensions = this.strings(value.extension, 'match.extension');
    if (extensions !== undefined) match.extensions = extensions.map((extension) => this.extension(extension));
    const methods = this.strings(value.method, 'match.method');
    if (methods !== undefined) match.methods = methods.map((method) => this.method(method));
    return match;
  }

  private freshness(item: JsonObject): RuleFreshness | undefined {
    const freshness: RuleFreshness = {};
    const ttl = this.seconds(item.edgeTtl, 'edgeTtl');
    if (ttl !== undefined) freshness.ttl = ttl;
    if (item.override !== undefined) freshness.override = this.boolean(item.override, 'override');
    const whileRevalidate = this.seconds(item.staleWhileRevalidate, 'staleWhileRevalidate');
    if (whileRevalidate !== undefined) freshness.staleWhileRevalidate = whileRevalidate;
    const ifError = this.seconds(item.staleIfError, 'staleIfError');
    if (ifError !== undefined) freshness.staleIfError = ifError;
    return Object.keys(freshness).length === 0 ? undefined : freshness;
  }

  private headers(value: Json): HeaderEdits {
    const edits: { set: [string, string][]; add: [string, string][]; remove: string[] } = {
      set: [],
      add: [],
      remove: [],
    };
    if (!isObject(value)) {
      this.problem('headers', 'must be an object of set, add and remove');
      return edits;
    }
    this.unknownFields(value, HEADER_FIELDS, 'headers.');
    for (const part of ['set', 'add'] as const) {
      const fields = value[part];
      if (fields === undefined) continue;
      if (!isObject(fields)) {
        this.problem(`headers.${part}`, 'must be an object of field names to values');
        continue;
      }
      for (const [name, fieldValue] of Object.entries(fields)) {
        const where = `headers.${part}.${name}`;
        const checked = this.fieldName(name, where);
        const text = this.fieldValue(fieldValue, where);
        if (checked !== undefined && text !== undefined) edits[part].push([checked, text]);
      }
    }
    const removed = this.strings(value.remove, 'headers.remove') ?? [];
    for (const name of removed) {
      const checked = this.fieldName(name, 'headers.remove');
      if (checked !== undefined) edits.remove.push(checked);
    }
    return edits;
  }

  private redirect(value: Json): RuleRedirect | undefined {
    if (!isObject(value)) {
      this.problem('redirect', 'must be an object with status and location');
      return undefined;
    }
    this.unknownFields(value, REDIRECT_FIELDS, 'redirect.');
    const status = REDIRECT_STATUSES.find((allowed) => allowed === value.status);
    if (status === undefined) this.problem('redirect.status', `must be one of ${REDIRECT_STATUSES.join(', ')}`);
    const location = this.location(value.location);
    const preservePathSuffix =
      value.preservePathSuffix === undefined
        ? false
        : this.boolean(value.preservePathSuffix, 'redirect.preservePathSuffix');
    const preserveQuery =
      value.preserveQuery === undefined ? false : this.boolean(value.preserveQuery, 'redirect.preserveQuery');
    if (status === undefined || location === undefined) return undefined;
    return { status, location, preservePathSuffix, preserveQuery };
  }

  private location(value: Json | undefined): string | undefined {
    if (typeof value === 'string' && FIELD_VALUE.test(value)) {
      if (value.startsWith('/') && !value.startsWith('//')) return value;
      try {
        const url = new URL(value);
        if (url.protocol === 'https:' || url.protocol === 'http:') return value;
      } catch {
        // Refused below, by name.
      }
    }
    this.problem('redirect.location', 'must be an absolute path (`/new/`) or an http(s) URL');
    return undefined;
  }

  private keyQuery(value: Json): KeyQuery | undefined {
    if (value === 'all') return 'all';
    const names = typeof value === 'string' ? [value] : value;
    if (
      !Array.isArray(names) ||
      names.length === 0 ||
      !names.every((name) => typeof name === 'string' && name !== '')
    ) {
      this.problem('cacheKeyQuery', 'must be "all" or a non-empty list of query parameter names');
      return undefined;
    }
    return names as string[];
  }

  private pattern(value: string): string {
    if (!value.startsWith('/')) this.problem('match.path', `must start with \`/\`, got ${JSON.stringify(value)}`);
    // The canonical spelling the cache keys: `%7E` is `~` there, and so it is here.
    return normalizePath(value);
  }

  private path(value: Json, field: string): string | undefined {
    if (typeof value === 'string' && value.startsWith('/') && !value.includes('*') && FIELD_VALUE.test(value)) {
      return normalizePath(value);
    }
    this.problem(field, 'must be a path starting with `/`, without `*`');
    return undefined;
  }

  private host(value: string): string {
    const host = value.toLowerCase();
    if (!/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$|^\[[0-9a-f:.]+\]$/.test(host)) {
      this.problem('match.host', `must be a host name, or \`*.\` and one, got ${JSON.stringify(value)}`);
    }
    return host;
  }

  private extension(value: string): string {
    const extension = value.replace(/^\./, '').toLowerCase();
    if (!/^[a-z0-9]+$/.test(extension)) {
      this.problem('match.extension', `must be letters and digits (\`html\`), got ${JSON.stringify(value)}`);
    }
    return extension;
  }

  private method(value: string): RuleMethod {
    const method = RULE_METHODS.find((allowed) => allowed === value.toUpperCase());
    if (method === undefined) this.problem('match.method', `must be one of ${RULE_METHODS.join(', ')}`);
    return method ?? 'GET';
  }

  private fieldName(value: string, field: string): string | undefined {
    const name = value.toLowerCase();
    if (!FIELD_NAME.test(name)) this.problem(field, `names no header field: ${JSON.stringify(value)}`);
    else if (UNEDITABLE.has(name)) this.problem(field, `edits ${name}, which the tiers keep for themselves`);
    else return name;
    return undefined;
  }

  private fieldValue(value: Json | undefined, field: string): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value === 'string' && FIELD_VALUE.test(value)) return value;
    this.problem(field, 'must be a header value: text without CR, LF or NUL, not empty');
    return undefined;
  }

  private seconds(value: Json | undefined, field: string): number | undefined {
    if (value === undefined) return undefined;
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_SECONDS) return value;
    this.problem(field, `must be whole seconds from 0 to ${MAX_SECONDS}`);
    return undefined;
  }

  private boolean(value: Json, field: string): boolean {
    if (typeof value === 'boolean') return value;
    this.problem(field, 'must be true or false');
    return false;
  }

  /** One string or a non-empty list of strings. */
  private strings(value: Json | undefined, field: string): string[] | undefined {
    if (value === undefined) return undefined;
    if (typeof value === 'string') return [value];
    if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string')) {
      return value as string[];
    }
    this.problem(field, 'must be a string or a non-empty list of strings');
    return undefined;
  }

  private unknownFields(value: JsonObject, known: readonly string[], prefix: string): void {
    for (const name of Object.keys(value)) {
      if (!known.includes(name)) this.problem(`${prefix}${name}`, `is not a rule field (${known.join(', ')})`);
    }
  }
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
