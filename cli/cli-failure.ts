// Why a command stops, and with which exit code: 2 when it was asked wrongly or has nowhere to
// go (usage, no local stack, no token), 1 when the deployment could not be reached or said no.
// Thrown anywhere in a command, printed once by its run function (run-stats.ts, run-purge.ts).

export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export class CliFailure extends Error {
  override name = 'CliFailure';
  readonly exitCode: number;

  constructor(message: string, exitCode: number = EXIT_FAILED) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Reports `error` on `err` and answers the exit code; anything but a CliFailure is a bug, shown as one. */
export function failureExit(error: unknown, err: (text: string) => void): number {
  if (error instanceof CliFailure) {
    err(error.message);
    return error.exitCode;
  }
  err(`unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return EXIT_FAILED;
}
