// When a harness's client "leaves" (departing-edge.js): a loopback server that holds every request until `leave()`,
// which answers them all; the edge's request signal aborts as the answer arrives.

import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The header departing-edge.js reads: the switch's URL. */
export const LEAVES_HEADER = 'x-test-client-leaves-on';
/** The line departing-edge.js prints once the edge was told (the runtime's output passes through this process). */
export const TOLD_LINE = /tiercache-harness: the edge was told its client left/;

export interface DepartureSwitch {
  /** `http://127.0.0.1:PORT/`: the value of LEAVES_HEADER. */
  url: string;
  /** The clients holding this switch leave now. */
  leave(): void;
  close(): Promise<void>;
}

export async function startDepartureSwitch(): Promise<DepartureSwitch> {
  const held: ServerResponse[] = [];
  let left = false;
  const server = createServer((_, res) => {
    if (left) res.end('left');
    else held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    leave() {
      left = true;
      for (const res of held.splice(0)) res.end('left');
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
