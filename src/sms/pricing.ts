/**
 * Price of an outbound SMS: the per-segment rate of the destination country (config SMS_PRICES, with a
 * `default`) times the number of segments, as a decimal string with 4 decimals (rounded half up).
 * Computed in integer micro-units so no binary floating point touches money.
 */
const MICRO = 1_000_000n;

function toMicros(decimal: string): bigint {
  const [whole = '0', frac = ''] = decimal.split('.');
  return BigInt(whole) * MICRO + BigInt(frac.padEnd(6, '0').slice(0, 6));
}

function formatMicros(micros: bigint, decimals = 4): string {
  const step = 10n ** BigInt(6 - decimals);
  const rounded = (micros + step / 2n) / step;
  const s = rounded.toString().padStart(decimals + 1, '0');
  return `${s.slice(0, -decimals)}.${s.slice(-decimals)}`;
}

export function perSegmentRate(prices: Record<string, string>, country: string | null): string {
  return (country && prices[country]) || prices.default || '0';
}

export function priceMessage(input: { prices: Record<string, string>; country: string | null; segments: number }): string {
  return formatMicros(toMicros(perSegmentRate(input.prices, input.country)) * BigInt(input.segments));
}
