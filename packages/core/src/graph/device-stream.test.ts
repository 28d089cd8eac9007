import { ClosedResourceError } from '@cuda-js/bindings';
import { Stream, STREAM_PROTOCOL } from '@cuda-js/streams';
import { describe, expect, it } from 'vitest';
import { DeviceStream, GraphBuilder } from '../index.js';

describe('DeviceStream', () => {
  it('is a Stream of @cuda-js/streams with createGraphBuilder()', () => {
    const wrapped = DeviceStream.from(0x1234n);
    expect(wrapped).toBeInstanceOf(DeviceStream);
    expect(wrapped).toBeInstanceOf(Stream);
    expect(wrapped[STREAM_PROTOCOL]()).toEqual({ version: 0, handle: 0x1234n });
    expect(typeof wrapped.createGraphBuilder).toBe('function');
    expect(DeviceStream.from(wrapped)).toBe(wrapped);
    // a plain Stream is wrapped (kept alive, not closed by the wrapper)
    const plain = Stream.from(0x5678n);
    const around = DeviceStream.from(plain);
    expect(around).not.toBe(plain);
    expect(around.handle).toBe(0x5678n);
    expect(around.isWrapped).toBe(true);
  });

  it('refuses to capture once closed, by name, before any driver call', () => {
    const stream = DeviceStream.from(0x1234n);
    stream.close();
    expect(() => stream.createGraphBuilder()).toThrow(ClosedResourceError);
    expect(() => GraphBuilder.fromStream(stream)).toThrow(ClosedResourceError);
  });
});
