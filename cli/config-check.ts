// What the workers would refuse of the settings they read at start, found before a deploy: RULES (docs/rules.md),
// read by the same function the workers read it with, each problem naming RULES, the rule and the field.

import { ConfigError } from '../shared/http/errors.ts';
import { parseRules } from '../shared/rules/rules-document.ts';

/** `vars`: the deployment's (tiercache.config.ts); none when RULES is unset or can work. */
export function configProblems(vars: { RULES?: string | undefined }): string[] {
  try {
    parseRules(vars.RULES);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
}
