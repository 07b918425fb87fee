/**
 * The longest delay `setTimeout` honours (2^31 − 1 ms, about 24.8 days). A longer one fires at
 * once, so every `timeoutMs` option in the toolkit is bounded by it.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** Whether `value` is a usable timeout: a number of milliseconds in (0, {@link MAX_TIMER_MS}]. */
export function isTimeoutMs(value: unknown): value is number {
  return typeof value === "number" && value > 0 && value <= MAX_TIMER_MS;
}
