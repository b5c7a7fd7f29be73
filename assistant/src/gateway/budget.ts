// The spending caps at the gateway (docs/MODELS.md, "Spending caps"): each call is reserved at its largest possible
// cost before it is sent (refused with 402 budget_exceeded when a cap has no room), and settled to what the provider
// reported once it ends: its tokens, priced (cached tokens as cached), or the provider's own cost where it gives one.
import type { Pool } from 'pg';
import { costMicros, isLocalProvider, priceOf, type ModelPrice } from '../budget/prices';
import { BudgetExceededError, reserveBudget, settleBudget, type Reservation } from '../budget/reserve';
import type { ModelCall } from './call';
import { GatewayError } from './errors';
import type { CallOutcome } from './ledger';
import type { ReportedUsage } from './usage';

export interface CallCharge {
  reservation: Reservation;
  price: ModelPrice;
  /** The largest cost reserved: tokens and millionths of a dollar. */
  tokens: number;
  micros: number;
}

export class GatewayBudget {
  constructor(
    private readonly pool: Pool,
    private readonly prices: Map<string, ModelPrice>,
    private readonly clock: () => Date,
  ) {}

  /** Reserves the call's largest cost (prompt as measured, the whole answer) or refuses it with the cap's message. */
  async reserve(call: ModelCall, promptTokens: number, outputTokens: number): Promise<void> {
    const price = priceOf(call.model, this.prices, isLocalProvider(call.provider!.baseUrl));
    const micros = costMicros({ prompt: promptTokens, cached: 0, output: outputTokens }, price);
    await this.reserveCharge(call, promptTokens + outputTokens, micros, price);
  }

  private async reserveCharge(call: ModelCall, tokens: number, micros: number, price: ModelPrice): Promise<void> {
    try {
      const reservation = await reserveBudget(this.pool, { caller: call.caller, tokens, micros, now: this.clock() });
      call.charge = { reservation, price, tokens, micros };
    } catch (error) {
      if (error instanceof BudgetExceededError) throw new GatewayError('budget_exceeded', error.message);
      throw error;
    }
  }

  /** A call the gateway cannot price before it is made (audio): one millionth of a dollar, so a spent cap refuses it. */
  async reserveNominal(call: ModelCall): Promise<void> {
    await this.reserveCharge(call, 0, 1, priceOf(call.model, this.prices, isLocalProvider(call.provider!.baseUrl)));
  }

  /** What the call cost, settled against its caps: reported usage priced; unreported, the reservation stands. */
  async settle(
    charge: CallCharge,
    outcome: CallOutcome,
    reported: ReportedUsage | undefined,
  ): Promise<{ costMicros: number; pricedBy: string }> {
    let spent: { tokens: number; micros: number };
    let pricedBy = charge.price.source;
    if (reported && reported.prompt !== null) {
      const counts = { prompt: reported.prompt, cached: reported.cached ?? 0, output: reported.output ?? 0 };
      const byProvider = reported.costUsd ?? null;
      if (byProvider !== null) pricedBy = 'provider';
      spent = {
        tokens: counts.prompt + counts.output,
        micros: byProvider !== null ? Math.ceil(byProvider * 1_000_000) : costMicros(counts, charge.price),
      };
    } else if (outcome === 'ok' || outcome === 'cut') {
      spent = { tokens: charge.tokens, micros: charge.micros };
      pricedBy = `${pricedBy}, unreported: as reserved`;
    } else {
      spent = { tokens: 0, micros: 0 };
    }
    await settleBudget(this.pool, charge.reservation, spent);
    return { costMicros: spent.micros, pricedBy };
  }
}
