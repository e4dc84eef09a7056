// How a command fails: a CliFailure carries its message and exit code, thrown anywhere and printed once;
// 2 when a command was asked wrongly or has nowhere to go (usage, no local stack, no token), 1 when the
// deployment could not be reached or said no.

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

/** A usage error: what was wrong, then the command's usage. */
export function usageError(message: string, usage: string): CliFailure {
  return new CliFailure(`${message}\n\n${usage}`, EXIT_USAGE);
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
