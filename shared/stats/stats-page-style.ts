// The stats page's one stylesheet, inline (the CSP allows inline styles only): fluid to a phone, 44 px tap targets
// (WCAG 2.2 SC 2.5.5), dark when the reader's system is (prefers-color-scheme); each tier in its own colour.

import { TIER_NAMES } from '../tiers/tiers.ts';

interface Tone {
  light: string;
  dark: string;
}

/** The tiers' colours in the list's order, light and dark (a tier past the last takes the first again). */
const TONES: readonly [Tone, ...Tone[]] = [
  { light: '#1f6feb', dark: '#5b9dff' },
  { light: '#c2410c', dark: '#fb923c' },
  { light: '#7c3aed', dark: '#a78bfa' },
  { light: '#0f766e', dark: '#2dd4bf' },
];

/** The accent (focus rings): the colour of the tier nearest the client. */
const ACCENT = `var(--${TIER_NAMES[0]})`;

export const STATS_PAGE_CSS = `
:root { color-scheme: light dark; --bg: #f7f7f5; --fg: #1b1b1f; --muted: #5c5f66; --card: #fff; --line: #d9dadf;
  ${eachTier((name, tone) => `--${name}: ${tone.light};`)} --good: #15803d; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #111316; --fg: #e8e9ec; --muted: #a0a4ad; --card: #1b1e23; --line: #30343b; ${eachTier((name, tone) => `--${name}: ${tone.dark};`)} --good: #4ade80; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); line-height: 1.45; -webkit-text-size-adjust: 100%; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem clamp(0.75rem, 3vw, 2rem) 2rem; }
header { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 0.5rem 1rem; }
h1 { font-size: 1.5rem; margin: 0.25rem 0; }
h2 { font-size: 1.15rem; margin: 1.75rem 0 0.75rem; }
h3 { font-size: 1rem; margin: 0 0 0.5rem; }
.meta, .note, figcaption, .label, dt { color: var(--muted); font-size: 0.875rem; }
.actions { display: flex; gap: 0.5rem; }
.button { display: inline-flex; align-items: center; min-height: 44px; min-width: 44px; padding: 0 1rem; border: 1px solid var(--line);
  border-radius: 0.5rem; background: var(--card); color: var(--fg); text-decoration: none; font-weight: 600; }
.button:focus-visible { outline: 3px solid ${ACCENT}; outline-offset: 2px; }
.grid-cards, .grid-charts, .grid-lists { display: grid; gap: 1rem; }
.grid-cards { grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); }
.grid-charts { grid-template-columns: repeat(auto-fit, minmax(min(100%, 26rem), 1fr)); }
.grid-lists { grid-template-columns: repeat(auto-fit, minmax(min(100%, 28rem), 1fr)); }
.grid-cost { display: grid; gap: 1rem; grid-template-columns: minmax(0, 1fr); align-items: start; }
@media (min-width: 60rem) { .grid-cost { grid-template-columns: minmax(18rem, 1fr) minmax(0, 2fr); } }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 0.75rem; padding: 1rem; min-width: 0; }
${eachTier((name) => `.card.${name} { border-top: 4px solid var(--${name}); }`)} .card.egress, .card.cost { border-top: 4px solid var(--good); }
.bigs { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; margin-bottom: 0.5rem; }
.big { display: flex; flex-direction: column; }
.big .value { font-size: clamp(1.9rem, 7vw, 2.6rem); font-weight: 700; font-variant-numeric: tabular-nums; line-height: 1.1; }
dl { display: grid; grid-template-columns: auto 1fr; gap: 0.2rem 1rem; margin: 0; }
dd { margin: 0; text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 0; }
.chart { display: block; width: 100%; height: auto; }
.chart .grid { stroke: var(--line); stroke-width: 1; }
.chart .axis { fill: var(--muted); font-size: 13px; }
.chart .line { fill: none; stroke-width: 2; stroke-linejoin: round; }
.chart .area { stroke: none; opacity: 0.14; }
${eachTier((name) => `.tone-${name}.line { stroke: var(--${name}); } .tone-${name}.area { fill: var(--${name}); }`, '\n')}
.legend { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; list-style: none; padding: 0; margin: 0.5rem 0 0; }
.swatch { display: inline-block; width: 0.8rem; height: 0.8rem; border-radius: 0.2rem; margin-right: 0.35rem; vertical-align: -0.1rem; }
${eachTier((name) => `.swatch.tone-${name} { background: var(--${name}); }`)}
.scroll { overflow-x: auto; }
table { width: 100%; border-collapse: collapse; font-size: 0.9rem; }
caption { text-align: left; font-weight: 600; padding-bottom: 0.4rem; }
th, td { padding: 0.45rem 0.5rem; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
.number { width: 1%; text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.time { white-space: nowrap; }
.key { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
footer { margin-top: 2rem; }
`;

/** A rule per tier, `rule(name, tone)`, joined by `separator`. */
function eachTier(rule: (name: string, tone: Tone) => string, separator = ' '): string {
  return TIER_NAMES.map((name, index) => rule(name, TONES[index % TONES.length] ?? TONES[0])).join(separator);
}
