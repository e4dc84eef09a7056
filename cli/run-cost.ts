// `npm run cost`, as a function of its arguments and context, answering the exit code: the
// month the flags describe (or the three examples), priced by shared/cost, printed.

import { type PriceTable, PUBLISHED_PRICES } from '../shared/cost/prices.ts';
import { DEPLOYED_INTERVALS, EXAMPLE_MIXES, mixCost } from '../shared/cost/traffic-mix.ts';
import type { CliContext } from './command.ts';
import { failureExit } from './command.ts';
import { COST_USAGE, parseCostArgs } from './cost-args.ts';
import { renderEstimate, renderExamples } from './cost-tables.ts';

export function runCost(argv: readonly string[], context: Pick<CliContext, 'out' | 'err'>): number {
  try {
    const args = parseCostArgs(argv);
    if (args.help) {
      context.out(COST_USAGE);
      return 0;
    }
    const prices: PriceTable =
      args.egressPricePerTB === undefined
        ? PUBLISHED_PRICES
        : {
            ...PUBLISHED_PRICES,
            originEgressPerTB: { ...PUBLISHED_PRICES.originEgressPerTB, usd: args.egressPricePerTB },
          };
    const price = (mix: (typeof EXAMPLE_MIXES)[number]) =>
      mixCost(mix, prices, DEPLOYED_INTERVALS, { allowances: args.allowances });
    if (args.examples) {
      const examples = EXAMPLE_MIXES.map((mix) => ({ mix, estimate: price(mix) }));
      context.out(args.format === 'json' ? JSON.stringify(examples, null, 2) : renderExamples(examples, args.format));
      return 0;
    }
    const estimate = price(args.mix);
    context.out(
      args.format === 'json'
        ? JSON.stringify({ mix: args.mix, estimate }, null, 2)
        : renderEstimate(args.mix, estimate, args.format),
    );
    return 0;
  } catch (error) {
    return failureExit(error, context.err);
  }
}
