import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { brandHandle } from './brand-handle.js';
import type { CUevent } from './generated/handles.js';
import { ClosedResourceError, OwnedHandle } from './owned-handle.js';

// gc() without --expose-gc on the command line (memory-view's tests do the same)
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function collectUntil(done: () => boolean, rounds = 40): Promise<void> {
  for (let i = 0; i < rounds && !done(); i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const event = brandHandle<CUevent>(0x42n);

describe('OwnedHandle', () => {
  it('releases once at close, then refuses the handle with ClosedResourceError naming the resource', () => {
    const released: bigint[] = [];
    const owned = new OwnedHandle(event, {}, (h) => void released.push(h), 'Event');
    expect(owned.handle).toBe(0x42n);
    owned.close();
    owned.close();
    expect(released).toEqual([0x42n]);
    expect(owned.closed).toBe(true);
    expect(() => owned.handle).toThrow(ClosedResourceError);
    expect(() => owned.handle).toThrow('Event is closed');
  });

  it('take() hands the handle to the caller without releasing it, once', () => {
    const released: string[] = [];
    const owned = new OwnedHandle(
      event,
      {},
      { atClose: () => void released.push('close'), whenCollected: () => void released.push('collected') },
      'Buffer',
    );
    expect(owned.take()).toBe(0x42n);
    expect(owned.take()).toBeUndefined();
    owned.close();
    expect(released).toEqual([]);
    expect(() => owned.handle).toThrow(new ClosedResourceError('Buffer'));
  });

  it('a forgotten owner is released by whenCollected, not atClose; a closed one is not released again', async () => {
    const released: string[] = [];
    const release = {
      atClose: () => void released.push('close'),
      whenCollected: (h: CUevent) => void released.push(`collected 0x${h.toString(16)}`),
    };
    const kept = { owned: undefined as OwnedHandle<CUevent> | undefined };
    (() => {
      const forgotten = {};
      new OwnedHandle(event, forgotten, release, 'forgotten');
      const closed = {};
      kept.owned = new OwnedHandle(brandHandle<CUevent>(0x7n), closed, release, 'closed');
      kept.owned.close();
    })();
    await collectUntil(() => released.length >= 2);
    expect(released).toEqual(['close', 'collected 0x42']);
  });

  it('releaseWhenCollected moves the release to a keeper that outlives the owner', async () => {
    const released: string[] = [];
    let keeper: object | undefined = {};
    const keeperRef = new WeakRef(keeper);
    (() => {
      const owner = {};
      const owned = new OwnedHandle(event, owner, () => void released.push('released'), 'Buffer');
      owned.releaseWhenCollected(keeper);
      owned.closeWhenCollected();
      expect(() => owned.handle).toThrow(ClosedResourceError);
    })();
    await collectUntil(() => released.length > 0, 10);
    expect(released).toEqual([]); // the owner is gone, the keeper is not
    keeper = undefined;
    await collectUntil(() => released.length > 0 && keeperRef.deref() === undefined);
    expect(released).toEqual(['released']);
  });

  it('without a release only tracks closed (a handle owned elsewhere)', () => {
    const owned = new OwnedHandle(event, {}, undefined, 'Stream (wrapped)');
    owned.close();
    expect(owned.closed).toBe(true);
    expect(() => owned.handle).toThrow('Stream (wrapped) is closed');
  });

  it('brandHandle refuses what is not a bigint', () => {
    expect(() => brandHandle<CUevent>(42 as unknown as bigint)).toThrow(TypeError);
  });
});
