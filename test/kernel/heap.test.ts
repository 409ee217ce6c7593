import { expect } from 'chai';
import { applyHeapGrowingPercent } from '../../kernel/heap.ts';

describe('kernel: room the old generation gets before a full collection (HEAP_GROWING_PERCENT)', () => {
  it('sets V8 heap growing percent from the configuration, 0 handing the choice back to V8', () => {
    const set: string[] = [];
    expect(applyHeapGrowingPercent(100, [], (flags) => set.push(flags))).to.equal(true);
    expect(applyHeapGrowingPercent(0, [], (flags) => set.push(flags))).to.equal(true);
    expect(set).to.deep.equal(['--heap-growing-percent=100', '--heap-growing-percent=0']);
  });

  it('leaves a --heap-growing-percent given to node itself alone', () => {
    const set: string[] = [];
    expect(applyHeapGrowingPercent(100, ['--heap-growing-percent=30'], (flags) => set.push(flags))).to.equal(false);
    expect(applyHeapGrowingPercent(100, ['--heap_growing_percent=30'], (flags) => set.push(flags))).to.equal(false);
    expect(set).to.deep.equal([]);
  });
});
