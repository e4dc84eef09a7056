// What every contract suite shares (shared/tier/tier-cache-contract.ts, shared/tier/next-hop-contract.ts,
// shield/origin/origin-contract.ts), after undici's cacheStoreTests: clauses run one by one, each on an implementation
// of its own, and the broken ones told with what was seen, so that a broken fake names the clause it breaks.

/** A clause, named as the suite's report and a broken fake's expectation name it. */
interface NamedClause {
  name: string;
}

/** Equal as JSON, or thrown with both sides: a clause's message says what it saw, not only that it failed. */
export function expectEqual(seen: unknown, wanted: unknown, what: string): void {
  if (JSON.stringify(seen) !== JSON.stringify(wanted))
    throw new Error(`${what}: ${JSON.stringify(seen)}, wanted ${JSON.stringify(wanted)}`);
}

/** The clauses whose `run` threw, as `name: what was seen`; empty when every one holds. Run in order, one at a time. */
export async function clauseViolations<C extends NamedClause>(
  clauses: readonly C[],
  run: (clause: C, index: number) => Promise<void>,
): Promise<string[]> {
  const broken: string[] = [];
  for (const [index, clause] of clauses.entries()) {
    try {
      await run(clause, index);
    } catch (error) {
      broken.push(`${clause.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return broken;
}
