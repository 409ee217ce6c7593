/**
 * One page read ahead of the writer: `start` begins reading the page after a position while the
 * current page is written, `take` hands it over when the writer gets there (or reads the page itself
 * when nothing, or another position, was read ahead). At most one page waits, so memory stays at
 * two pages. A read ahead that fails surfaces when it is taken, never as an unhandled rejection.
 */
export class ReadAhead<T> {
  private pending: { at: string; result: Promise<{ ok: true; value: T } | { ok: false; error: unknown }> } | null =
    null;

  start(classIndex: number, afterId: number, read: () => Promise<T>): void {
    this.pending = {
      at: `${classIndex}:${afterId}`,
      result: read().then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
    };
  }

  async take(classIndex: number, afterId: number, read: () => Promise<T>): Promise<T> {
    const pending = this.pending;
    this.pending = null;
    if (!pending || pending.at !== `${classIndex}:${afterId}`) {
      // A page read for another position (a checkpoint moved elsewhere) is let go once it settles.
      await pending?.result;
      return read();
    }
    const settled = await pending.result;
    if (!settled.ok) throw settled.error;
    return settled.value;
  }
}
