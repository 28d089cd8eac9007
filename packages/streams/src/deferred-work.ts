/**
 * Work that a library holds back from a stream (a batch of launches recorded
 * natively, submitted at once) and must submit before anything else reaches
 * that stream through cuda-js: every read of the stream's handle by cuda-js
 * (a Stream's `handle`, its stream protocol answer, `streamHandle`) submits it
 * first, so that copies, events, host functions, waits of other streams and
 * foreign libraries that take the stream through the protocol stay ordered
 * after it. Code that kept the raw handle from before cannot be seen.
 */
const deferred = new Map<bigint, () => void>();

/** How many streams hold work back now: the handle reads check nothing else while it is 0. */
export let deferredStreams = 0;

/**
 * Holds work back from the stream `handle`: `submit` runs before the next
 * read of its handle (and is then forgotten). Returns the function that ends
 * the deferral without submitting.
 *
 * @throws {Error} when work is already held back from that stream (one batch per stream at a time)
 */
export function deferStreamWork(handle: bigint, submit: () => void): () => void {
  if (deferred.has(handle))
    throw new Error(`stream 0x${handle.toString(16)} already holds back work (a launch batch is open on it)`);
  deferred.set(handle, submit);
  deferredStreams = deferred.size;
  return () => {
    if (deferred.get(handle) === submit) deferred.delete(handle);
    deferredStreams = deferred.size;
  };
}

/** Submits what is held back from `handle`, if anything: called where cuda-js reads a stream's handle. */
export function submitDeferredWork(handle: bigint): void {
  const submit = deferred.get(handle);
  if (submit !== undefined) submit();
}
