// A benchmark's results: the table it prints, and one folder per run,
// bench/results/<ISO 8601 timestamp>/, holding <name>.json for machines and <name>.md for people.
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** bench/results/, beside this folder. */
const RESULTS_DIRECTORY = fileURLToPath(new URL('../results/', import.meta.url));

export interface Table {
  columns: readonly string[];
  rows: readonly (readonly string[])[];
}

/** What the numbers were measured on: the machine is shared, so its load is part of the result. */
export interface Machine {
  node: string;
  platform: string;
  /** The distribution and kernel, e.g. `Debian GNU/Linux 12 (bookworm), kernel 6.1.0`. */
  os: string;
  cpus: number;
  cpuModel: string;
  totalMemoryBytes: number;
  loadAverage: number[];
}

/** A Markdown pipe table with padded columns: printed as is, and written to the .md file. */
export function formatTable(table: Table): string {
  const cells = [table.columns, ...table.rows].map((row) => table.columns.map((_, i) => escapeCell(row[i] ?? '')));
  const widths = table.columns.map((_, i) => Math.max(3, ...cells.map((row) => row[i]?.length ?? 0)));
  const line = (row: readonly string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const [head = [], ...body] = cells;
  return [line(head), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

/** `at` in ISO 8601 basic format, `20260130T101502Z`: sortable, and no `:` in a path. */
export function timestampName(at: Date): string {
  return at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replaceAll('-', '')
    .replaceAll(':', '');
}

/** Writes `<name>.json` and `<name>.md` into the run's folder; answers their paths. */
export async function writeResults(name: string, at: Date, json: unknown, markdown: string): Promise<string[]> {
  const directory = join(RESULTS_DIRECTORY, timestampName(at));
  await mkdir(directory, { recursive: true });
  const paths = [join(directory, `${name}.json`), join(directory, `${name}.md`)];
  await writeFile(paths[0] ?? '', `${JSON.stringify(json, null, 2)}\n`);
  await writeFile(paths[1] ?? '', markdown.endsWith('\n') ? markdown : `${markdown}\n`);
  return paths;
}

/** The newest `<name>.json` under bench/results/ (folders sort by time), parsed; undefined when there is none. */
export async function latestResult(name: string): Promise<{ path: string; json: unknown } | undefined> {
  const folders = await readdir(RESULTS_DIRECTORY).catch(() => [] as string[]);
  for (const folder of folders.sort().reverse()) {
    const path = join(RESULTS_DIRECTORY, folder, `${name}.json`);
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text !== undefined) return { path, json: JSON.parse(text) as unknown };
  }
  return undefined;
}

export function machine(): Machine {
  const processors = cpus();
  return {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    os: operatingSystem(),
    cpus: processors.length,
    cpuModel: processors[0]?.model ?? 'unknown',
    totalMemoryBytes: totalmem(),
    loadAverage: loadavg().map((load) => Math.round(load * 100) / 100),
  };
}

export function describeMachine(m: Machine): string {
  // `os` is absent from results written before it was recorded.
  const os = m.os ? `${m.os}, ` : '';
  return `Node ${m.node}, ${os}${m.platform}, ${m.cpus} × ${m.cpuModel}, ${(m.totalMemoryBytes / 2 ** 30).toFixed(1)} GiB RAM, load average ${m.loadAverage.join(' ')}`;
}

/** PRETTY_NAME from os-release where there is one, and the kernel release. */
function operatingSystem(): string {
  const kernel = `kernel ${release()}`;
  try {
    const name = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1];
    return name ? `${name}, ${kernel}` : kernel;
  } catch {
    return kernel;
  }
}

export function describeError(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
}

function escapeCell(cell: string): string {
  return cell.replaceAll('|', '\\|').replaceAll('\n', ' ');
}
