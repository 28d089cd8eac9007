import { Stream, type StreamArgument, type StreamOptions } from '@cuda-js/streams';
import { GraphBuilder } from './graph-builder.js';

/**
 * The Stream that `device.createStream()` gives: a `@cuda-js/streams`
 * Stream (accepted wherever one is) that can also start a graph capture on
 * itself. It lives here because graphs are core's: streams cannot import core.
 */
export class DeviceStream extends Stream {
  /** A new stream in the current context; `device.createStream()` makes its device current first. */
  static override create(options?: StreamOptions): DeviceStream {
    // biome-ignore lint/complexity/noThisInStatic: Stream.create makes an instance of the class it is called on (this one)
    return super.create(options) as DeviceStream;
  }

  /** Wraps a stream that something else owns (see `Stream.from`), with {@link createGraphBuilder}. */
  static override from(stream: StreamArgument): DeviceStream {
    // biome-ignore lint/complexity/noThisInStatic: Stream.from makes an instance of the class it is called on (this one)
    return super.from(stream) as DeviceStream;
  }

  /**
   * A GraphBuilder that captures on this stream, which it borrows (cuda.core's
   * `Stream.create_graph_builder()`; the same as `GraphBuilder.fromStream(this)`).
   *
   * @throws {ClosedResourceError} after `close()`
   */
  createGraphBuilder(): GraphBuilder {
    return GraphBuilder.fromStream(this);
  }
}
