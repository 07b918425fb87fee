/**
 * Settles with `promise`, or rejects with the signal's reason as soon as it aborts: LangChain's
 * `BaseRetriever.invoke` does not hand its `_getRelevantDocuments` the signal, so a slow
 * retriever would otherwise hold an aborted run. The listener is removed when either settles.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {}); // settles later, unobserved
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
