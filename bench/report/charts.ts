// Charts for the benchmark reports as standalone SVG strings (720 × 360), no dependencies: grouped bars (one group
// per case, one bar per series) and lines (x optionally on a log scale).

const WIDTH = 720;
const HEIGHT = 360;
const MARGIN = { top: 44, right: 20, bottom: 64, left: 64 };
const PLOT = {
  x: MARGIN.left,
  y: MARGIN.top,
  width: WIDTH - MARGIN.left - MARGIN.right,
  height: HEIGHT - MARGIN.top - MARGIN.bottom,
};
/** Okabe–Ito: told apart with the common colour-vision deficiencies too. */
const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#F0E442', '#000000'];
const TICKS = 5;

export interface BarChart {
  title: string;
  /** Of every value, e.g. `req/s` or `ms`: shown on the axis. */
  unit: string;
  groups: { label: string; bars: { series: string; value: number }[] }[];
}

export interface LineChart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: { name: string; points: { x: number; y: number }[] }[];
  /** x on a log-10 scale (every x must then be above 0). */
  logX?: boolean;
}

/** Grouped bars: a group per label, the series in the order first seen, each bar labelled with its value. */
export function barChart(chart: BarChart): string {
  const series = [...new Set(chart.groups.flatMap((group) => group.bars.map((bar) => bar.series)))];
  const values = chart.groups.flatMap((group) =>
    group.bars.map((bar) => finite(bar.value, `${group.label} / ${bar.series}`)),
  );
  const y = linearScale(niceDomain(Math.min(0, ...values), Math.max(0, ...values)), [PLOT.y + PLOT.height, PLOT.y]);
  const groupWidth = PLOT.width / Math.max(1, chart.groups.length);
  const barWidth = (groupWidth * 0.8) / Math.max(1, series.length);
  const labelSize = Math.max(7, Math.min(11, barWidth / 3));
  const bars = chart.groups.flatMap((group, g) => {
    const left = PLOT.x + g * groupWidth + groupWidth * 0.1;
    const label = text(PLOT.x + (g + 0.5) * groupWidth, PLOT.y + PLOT.height + 16, group.label, { anchor: 'middle' });
    return [
      label,
      ...group.bars.map((bar) => {
        const x = left + series.indexOf(bar.series) * barWidth;
        const top = Math.min(y(bar.value), y(0));
        const height = Math.abs(y(bar.value) - y(0));
        const valueY = bar.value >= 0 ? top - 3 : top + height + labelSize;
        return `<rect x="${fmt(x + 1)}" y="${fmt(top)}" width="${fmt(Math.max(1, barWidth - 2))}" height="${fmt(height)}" fill="${colour(series.indexOf(bar.series))}"><title>${escapeXml(`${group.label}, ${bar.series}: ${formatNumber(bar.value)} ${chart.unit}`)}</title></rect>\n${text(x + barWidth / 2, valueY, formatNumber(bar.value), { anchor: 'middle', size: labelSize })}`;
      }),
    ];
  });
  const axes = [...yAxis(y, chart.unit), line(PLOT.x, y(0), PLOT.x + PLOT.width, y(0), '#333')];
  return svg(chart.title, [...axes, ...bars, ...legend(series)]);
}

/** Lines with a marker per point, sorted by x; the y axis starts at 0 unless a value is below it. */
export function lineChart(chart: LineChart): string {
  const points = chart.series.flatMap((s) =>
    s.points.map((p) => ({ x: finite(p.x, `${s.name} x`), y: finite(p.y, `${s.name} y`) })),
  );
  if (chart.logX && points.some((p) => p.x <= 0))
    throw new RangeError(`a log-scale x needs every x above 0, got ${Math.min(...points.map((p) => p.x))}`);
  const xs = points.map((p) => p.x);
  const [xMin, xMax] = xs.length > 0 ? [Math.min(...xs), Math.max(...xs)] : chart.logX ? [1, 10] : [0, 1];
  const x = chart.logX
    ? logScale(xMin, xMax, [PLOT.x, PLOT.x + PLOT.width])
    : linearScale(niceDomain(xMin, xMax), [PLOT.x, PLOT.x + PLOT.width]);
  const y = linearScale(niceDomain(Math.min(0, ...points.map((p) => p.y)), Math.max(0, ...points.map((p) => p.y))), [
    PLOT.y + PLOT.height,
    PLOT.y,
  ]);
  const lines = chart.series.flatMap((s, i) => {
    const sorted = [...s.points].sort((a, b) => a.x - b.x);
    const path = sorted.map((p) => `${fmt(x(p.x))},${fmt(y(p.y))}`).join(' ');
    const markers = sorted.map(
      (p) =>
        `<circle cx="${fmt(x(p.x))}" cy="${fmt(y(p.y))}" r="3" fill="${colour(i)}"><title>${escapeXml(`${s.name}: ${formatNumber(p.x)}, ${formatNumber(p.y)}`)}</title></circle>`,
    );
    return [`<polyline points="${path}" fill="none" stroke="${colour(i)}" stroke-width="2"/>`, ...markers];
  });
  const xTicks = x.ticks.flatMap((tick) => [
    line(x(tick), PLOT.y, x(tick), PLOT.y + PLOT.height, '#e5e5e5'),
    line(x(tick), PLOT.y + PLOT.height, x(tick), PLOT.y + PLOT.height + 4, '#333'),
    text(x(tick), PLOT.y + PLOT.height + 16, formatNumber(tick), { anchor: 'middle' }),
  ]);
  const xTitle = text(
    PLOT.x + PLOT.width / 2,
    PLOT.y + PLOT.height + 34,
    chart.logX ? `${chart.xLabel} (log scale)` : chart.xLabel,
    { anchor: 'middle' },
  );
  const axes = [
    ...xTicks,
    ...yAxis(y, chart.yLabel),
    line(PLOT.x, PLOT.y + PLOT.height, PLOT.x + PLOT.width, PLOT.y + PLOT.height, '#333'),
    xTitle,
  ];
  return svg(chart.title, [...axes, ...lines, ...legend(chart.series.map((s) => s.name))]);
}

/** Text is XML-escaped here: titles, labels and tooltips. */
function escapeXml(value: string): string {
  // Characters XML 1.0 forbids (most C0 controls) are dropped; the five specials escaped.
  const allowed = value.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '');
  return allowed.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[c]};`);
}

// Scales: value → pixel, with the tick values to draw.

interface Scale {
  (value: number): number;
  ticks: number[];
}

/** [min, max] widened to whole steps of 1, 2 or 5 × 10^k, about TICKS of them; [0, 1] when flat. */
function niceDomain(min: number, max: number): { min: number; max: number; step: number } {
  if (max - min <= 0)
    return max === 0 ? { min: 0, max: 1, step: 0.2 } : niceDomain(Math.min(0, min), Math.max(0, max) || 1);
  const rough = (max - min) / TICKS;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 5, 10].find((m) => m * power >= rough) ?? 10) * power;
  return { min: Math.floor(min / step) * step, max: Math.ceil(max / step) * step, step };
}

function linearScale(domain: { min: number; max: number; step: number }, [from, to]: [number, number]): Scale {
  const scale = (value: number) => from + ((value - domain.min) / (domain.max - domain.min)) * (to - from);
  const count = Math.round((domain.max - domain.min) / domain.step);
  return Object.assign(scale, {
    ticks: Array.from({ length: count + 1 }, (_, i) => roundOff(domain.min + i * domain.step)),
  });
}

/** Whole decades around [min, max]; ticks at 1, 2 and 5 × 10^k when the span is under 3 decades. */
function logScale(min: number, max: number, [from, to]: [number, number]): Scale {
  const low = Math.floor(Math.log10(min));
  const high = Math.max(low + 1, Math.ceil(Math.log10(max)));
  const scale = (value: number) => from + ((Math.log10(value) - low) / (high - low)) * (to - from);
  const multiples = high - low < 3 ? [1, 2, 5] : [1];
  const ticks = Array.from({ length: high - low + 1 }, (_, i) =>
    multiples.map((m) => roundOff(m * 10 ** (low + i))),
  ).flat();
  return Object.assign(scale, { ticks: ticks.filter((tick) => tick <= 10 ** high) });
}

// SVG pieces.

function svg(title: string, body: string[]): string {
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="Helvetica, Arial, sans-serif" font-size="11" fill="#222">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`,
    text(WIDTH / 2, 22, title, { anchor: 'middle', size: 15, weight: 'bold' }),
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

function yAxis(y: Scale, label: string): string[] {
  const ticks = y.ticks.flatMap((tick) => [
    line(PLOT.x, y(tick), PLOT.x + PLOT.width, y(tick), '#e5e5e5'),
    line(PLOT.x - 4, y(tick), PLOT.x, y(tick), '#333'),
    text(PLOT.x - 7, y(tick) + 4, formatNumber(tick), { anchor: 'end' }),
  ]);
  const title = `<text transform="translate(16 ${fmt(PLOT.y + PLOT.height / 2)}) rotate(-90)" text-anchor="middle">${escapeXml(label)}</text>`;
  return [...ticks, line(PLOT.x, PLOT.y, PLOT.x, PLOT.y + PLOT.height, '#333'), title];
}

/** One row of swatches under the plot, centred. */
function legend(names: string[]): string[] {
  const widths = names.map((name) => 18 + name.length * 6.5 + 14);
  let x = (WIDTH - widths.reduce((sum, w) => sum + w, 0)) / 2;
  const y = HEIGHT - 14;
  return names.map((name, i) => {
    const item = `<rect x="${fmt(x)}" y="${y - 9}" width="12" height="12" fill="${colour(i)}"/>\n${text(x + 17, y + 1, name, {})}`;
    x += widths[i] ?? 0;
    return item;
  });
}

function text(
  x: number,
  y: number,
  content: string,
  style: { anchor?: 'start' | 'middle' | 'end'; size?: number; weight?: 'bold' },
): string {
  const attributes = [`x="${fmt(x)}"`, `y="${fmt(y)}"`];
  if (style.anchor && style.anchor !== 'start') attributes.push(`text-anchor="${style.anchor}"`);
  if (style.size !== undefined) attributes.push(`font-size="${fmt(style.size)}"`);
  if (style.weight) attributes.push(`font-weight="${style.weight}"`);
  return `<text ${attributes.join(' ')}>${escapeXml(content)}</text>`;
}

function line(x1: number, y1: number, x2: number, y2: number, stroke: string): string {
  return `<line x1="${fmt(x1)}" y1="${fmt(y1)}" x2="${fmt(x2)}" y2="${fmt(y2)}" stroke="${stroke}" stroke-width="1"/>`;
}

function colour(index: number): string {
  return PALETTE[index % PALETTE.length] ?? '#000';
}

/** Numbers must be finite: a RangeError names the one that is not. */
function finite(value: number, what: string): number {
  if (!Number.isFinite(value)) throw new RangeError(`expected a finite number for ${what}, got ${value}`);
  return value;
}

/** Compact, three significant digits: 1234567 → 1.23M, 24332 → 24.3k, 5000 → 5k, 0.635 → 0.635. */
function formatNumber(value: number): string {
  const size = Math.abs(value);
  if (size >= 1e9) return `${+(value / 1e9).toPrecision(3)}G`;
  if (size >= 1e6) return `${+(value / 1e6).toPrecision(3)}M`;
  if (size >= 1e3) return `${+(value / 1e3).toPrecision(3)}k`;
  return String(+value.toPrecision(3));
}

function fmt(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/** 0.30000000000000004 → 0.3: tick values built by adding steps. */
function roundOff(value: number): number {
  return Number(value.toPrecision(12));
}
