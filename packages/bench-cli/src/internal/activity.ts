/**
 * What the command is waiting for, in words, for the one case where nothing else can say it: the
 * event loop ran empty while a promise the command awaits is still pending (a config whose default
 * export never settles, a target call or metric that returns a promise nothing settles). Node
 * would then exit with code 13 and print nothing; `bin.ts` prints {@link stalled} instead.
 */
let current: { readonly what: string | (() => string); readonly fix: string } | undefined;

/**
 * Records what the command awaits from here on (a function when it changes as the wait goes on:
 * samples finished so far), and what to do should that never settle.
 */
export function awaiting(what: string | (() => string), fix: string): void {
  current = { what, fix };
}

/** Clears it: the command is past the wait. */
export function doneAwaiting(): void {
  current = undefined;
}

/** The message for a command whose awaited promise can never settle. */
export function stalled(): string {
  const what = current?.what;
  const where =
    what === undefined
      ? "the command waited on a promise"
      : typeof what === "string"
        ? what
        : what();
  const fix = current?.fix ?? "this is a bug of fastrag-bench; please report it";
  return `${where}, but nothing is left that could settle it (no timer, no I/O, no pending call): it would wait forever. ${fix}`;
}
