// What storing bytes costs this machine's kernel: the CPU time to write a file onto pages it takes anew, against
// writing the same bytes over pages the file already has. Recorded with each full run, beside the machine.

import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MIB = 2 ** 20;
const DEFAULT_MIB = 256;
const REPORTING_PARAMETERS = '/sys/module/page_reporting/parameters';
/** Reporting is done by a balloon device: without one bound, nothing is handed back. */
const BALLOON_DRIVER = '/sys/bus/virtio/drivers/virtio_balloon';

export interface PageCost {
  mib: number;
  /** CPU ms per MiB writing a new file (new pages). */
  freshMsPerMiB: number;
  /** CPU ms per MiB writing the same bytes over it again (pages it has). */
  inPlaceMsPerMiB: number;
  /** The guest's free page reporting (virtio-balloon), when it reports freed memory to its host. */
  reporting?: FreePageReporting;
}

export interface FreePageReporting {
  /** Freed blocks of this size are handed back. */
  blockMiB: number;
  /** After they have been free this long. */
  minFreeMs: number;
}

/**
 * Writes `mib` MiB into a new file in `directory`, then over it again; the file is removed. Every cold byte a cache
 * stores lands on new pages, so where the first is dear (a VM whose balloon hands each freed block back to the host,
 * so each new page is a fault there) it bounds what any cache can store per second, tiercache's two tiers first.
 */
export function pageCost(mib = DEFAULT_MIB, directory = tmpdir()): PageCost {
  const folder = mkdtempSync(join(directory, 'tiercache-page-cost-'));
  const chunk = Buffer.alloc(MIB, 0x5a);
  try {
    const fd = openSync(join(folder, 'probe'), 'w');
    try {
      const writeAll = (): void => {
        for (let i = 0; i < mib; i++) writeSync(fd, chunk, 0, MIB, i * MIB);
      };
      const fresh = cpuMs(writeAll);
      const inPlace = cpuMs(writeAll);
      const reporting = freePageReporting();
      return { mib, freshMsPerMiB: fresh / mib, inPlaceMsPerMiB: inPlace / mib, ...(reporting && { reporting }) };
    } finally {
      closeSync(fd);
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The parameters of Linux's page_reporting, as read from sysfs; undefined when it is absent or off. */
export function parseReporting(
  order: string | undefined,
  minFreeMs: string | undefined,
): FreePageReporting | undefined {
  // The order counts 4 KiB pages: order 9 is 2 MiB. Absent or garbled: no reporting known.
  const digits = /^\d{1,2}$/;
  const blockOrder = Number(order?.trim());
  if (order === undefined || !digits.test(order.trim()) || blockOrder > 30) return undefined;
  const wait = minFreeMs?.trim() ?? '';
  return { blockMiB: 2 ** blockOrder / 256, minFreeMs: /^\d+$/.test(wait) ? Number(wait) : 0 };
}

/** One line for a report. */
export function describePageCost(cost: PageCost): string {
  const reporting = cost.reporting
    ? `; the guest hands freed memory back to its host (free page reporting: ${cost.reporting.blockMiB} MiB blocks after ${cost.reporting.minFreeMs} ms)`
    : '';
  return `writing new pages costs ${cost.freshMsPerMiB.toFixed(2)} ms of CPU per MiB, over pages already held ${cost.inPlaceMsPerMiB.toFixed(2)} (${cost.mib} MiB)${reporting}`;
}

function freePageReporting(): FreePageReporting | undefined {
  let balloons: string[];
  try {
    balloons = readdirSync(BALLOON_DRIVER).filter((name) => name.startsWith('virtio'));
  } catch {
    return undefined;
  }
  if (balloons.length === 0) return undefined;
  const read = (name: string): string | undefined => {
    try {
      return readFileSync(join(REPORTING_PARAMETERS, name), 'utf8');
    } catch {
      return undefined;
    }
  };
  return parseReporting(read('page_reporting_order'), read('min_free_ms'));
}

function cpuMs(work: () => void): number {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}
