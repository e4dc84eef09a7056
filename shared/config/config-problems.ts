// Reading a configuration to the end: a refusal (a ConfigError) is kept instead of stopping the
// reading, so that one ConfigError lists every setting that cannot work.

import { ConfigError } from '../http/errors.ts';

/** Each setting read on its own, its refusal kept: as a compiler lists every error of a file, not the first. */
export class ConfigProblems {
  readonly #found: string[] = [];

  /**
   * What `parse` reads, or `placeholder` when it refuses the setting (kept as a problem). A
   * placeholder stands in only so that the settings read after it can still be checked: once
   * any problem is kept, `throwIfAny` throws, so it never reaches a running configuration.
   */
  read<T>(parse: () => T, placeholder: T): T {
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      this.#found.push(...error.problems);
      return placeholder;
    }
  }

  /** One ConfigError listing every problem kept, in the order the settings were read. */
  throwIfAny(): void {
    if (this.#found.length > 0) throw new ConfigError(this.#found);
  }
}
