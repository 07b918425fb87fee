// The brands of the error family: a global symbol per class, so that `isInstance` recognizes an
// error from another installed copy of the package, where `instanceof` cannot.

/** Marks `target` with `symbol` (not enumerable: it stays out of JSON and `Object.keys`). */
export function brand(target: object, symbol: symbol): void {
  Object.defineProperty(target, symbol, { value: true, enumerable: false });
}

/** True when `error` carries the brand `symbol`. */
export function hasBrand(error: unknown, symbol: symbol): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as Record<symbol, unknown>)[symbol] === true
  );
}
