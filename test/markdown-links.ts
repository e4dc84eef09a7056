// A Markdown document read the way GitHub renders it, for the check that the README's and
// docs/'s links resolve (docs-links.test.ts): the anchors its headings get, and the links it
// makes. Code is not Markdown: fenced blocks and inline code hold no heading and no link.

/** The document without its fenced code blocks (``` or ~~~, indented at most three spaces). */
export function withoutFences(markdown: string): string {
  const kept: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) fence = marker;
    else if (
      fence !== undefined &&
      marker !== undefined &&
      marker[0] === fence[0] &&
      marker.length >= fence.length &&
      line.trim() === marker
    )
      fence = undefined;
    else if (fence === undefined) kept.push(line);
  }
  return kept.join('\n');
}

/** The text without inline code spans (a run of backticks to the next run of the same length, across line breaks). */
function withoutInlineCode(text: string): string {
  return text.replace(/(?<!`)(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, '');
}

/** Text outside code: a link renders its text, and emphasis marks (`*`, `_` at a word's edge) render nothing. */
function renderedProse(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\*+/g, '')
    .replace(/(?<![\p{L}\p{N}_])_+(?=\S)|(?<=\S)_+(?![\p{L}\p{N}_])/gu, '');
}

/** The text a heading's Markdown renders: inline code its content as written, the rest as `renderedProse` says. */
export function headingText(markdown: string): string {
  const code = /(?<!`)(`+)(?!`)([\s\S]*?)(?<!`)\1(?!`)/g;
  let text = '';
  let at = 0;
  for (const match of markdown.matchAll(code)) {
    text += renderedProse(markdown.slice(at, match.index)) + (match[2] ?? '').trim();
    at = match.index + match[0].length;
  }
  return (text + renderedProse(markdown.slice(at))).trim();
}

/**
 * GitHub's anchor for a heading's text (github-slugger): lower case; every character that is
 * not a letter, a mark, a digit, a connector (`_`), `-` or a space dropped; each space a `-`.
 */
export function headingSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every ATX heading's anchor, in order; a repeated one numbered as GitHub does (`x`, `x-1`, `x-2`). */
export function headingAnchors(markdown: string): string[] {
  const seen = new Set<string>();
  const anchors: string[] = [];
  for (const line of withoutFences(markdown).split('\n')) {
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = headingSlug(headingText(heading));
    let anchor = base;
    for (let n = 1; seen.has(anchor); n++) anchor = `${base}-${n}`;
    seen.add(anchor);
    anchors.push(anchor);
  }
  return anchors;
}

/** The target of every inline link and image (`[text](target)`, `![alt](<target> "title")`), outside code. */
export function linkTargets(markdown: string): string[] {
  const prose = withoutInlineCode(withoutFences(markdown));
  return [...prose.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*(?:<([^>]*)>|([^)\s]+))(?:\s+"[^"]*")?\s*\)/g)].map(
    (match) => match[1] ?? match[2] ?? '',
  );
}

/** A target that leaves the repository (a scheme such as `https:` or `mailto:`), which this check does not follow. */
export function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target);
}
