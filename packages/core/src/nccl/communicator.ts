import {
  ClosedResourceError,
  driver,
  nccl,
  NcclError,
  type CUdeviceptr,
  type CUstream,
  type ncclComm_t,
} from '@cuda-js/bindings';
import { OwnedHandle } from '@cuda-js/bindings/runtime';
import { formatValue, type DTypeLike } from '@cuda-js/memory-view';
import { streamHandle, type StreamArgument } from '@cuda-js/streams';
import { Device } from '../device/device.js';
import { CollectiveArgumentError, DeviceMismatchError } from '../errors.js';
import { hasSeveralDevices } from '../context/multi-device.js';
import { deviceOfStream, toDevice } from '../device/device-queries.js';
import { issued, runGroup } from './collective-group.js';
import {
  callDType,
  checkCollectiveOverlap,
  collectiveMemory,
  elementCount,
  type CollectiveMemory,
} from './collective-memory.js';
import type { CollectiveWork } from './collective-work.js';
import { applyNcclEnvironmentDefaults } from './nccl-environment.js';
import { dtypeOption, ncclElementType, reduceOp, type ReduceOp } from './nccl-types.js';
import { decodeUniqueId, encodeUniqueId, UNIQUE_ID_BYTES } from './unique-id.js';
import { isAnything } from '@cuda-js/options';
import { checkCoreOptions } from '../core-options.js';

/** The memory of a collective: a core Buffer, or any array memory-view can view (StridedMemoryView, DLPack, the CUDA array interface). */
export type CollectiveArray = object;

/** Options of every collective and point-to-point call. */
export interface CollectiveOptions {
  /** The stream the call is ordered on (default: the communicator's device's legacy default stream); a stream of the communicator's device. */
  readonly stream?: StreamArgument | undefined;
  /** The element type where no array says it (a Buffer's bytes: `'float32'`, ...); views must agree with it. */
  readonly dtype?: DTypeLike | undefined;
  /** Elements per rank (default: all of the array, which must then have exactly the size the call needs); the arrays must hold at least that many. */
  readonly count?: number | undefined;
}

/** Options of the calls that reduce. */
export interface ReductionOptions extends CollectiveOptions {
  /** The reduction (default `'sum'`). */
  readonly op?: ReduceOp | undefined;
}

/** Options of the calls with a root rank. */
export interface RootedOptions extends CollectiveOptions {
  /** The rank whose data is sent (broadcast) or that receives the result (reduce); default 0. */
  readonly root?: number | undefined;
}

/** Options of {@link Communicator.initRank}. */
export interface InitRankOptions {
  /** The id of the new communicator, from one rank's {@link Communicator.uniqueId} (base64 text, or its 128 bytes). */
  readonly id: string | Uint8Array;
  /** This process's rank, in `[0, worldSize)`. */
  readonly rank: number;
  /** How many ranks join. */
  readonly worldSize: number;
  /** The device of this rank (a Device or an ordinal; default 0). */
  readonly device?: Device | number | undefined;
}

/** The options checked, each key read once: use them, not the caller's object. */
function checkOptions<T extends object>(
  options: T,
  allowed: readonly string[],
  what: string,
  expected = 'an object',
): T {
  if (options === null || typeof options !== 'object')
    throw new CollectiveArgumentError(`${what}: options must be ${expected}, got ${formatValue(options)}`);
  return checkCoreOptions<T>(what, options, Object.fromEntries(allowed.map((key) => [key, isAnything]))) as T;
}

/** The ordinal of a device argument (a Device or a device ordinal), before any device is looked up. */
function deviceOrdinal(value: unknown, label: string): number {
  if (value instanceof Device) return value.ordinal;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  throw new CollectiveArgumentError(`${label} must be a Device or a device ordinal, got ${formatValue(value)}`);
}

function checkCount(count: unknown, what: string): number | undefined {
  if (count === undefined) return undefined;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0)
    throw new CollectiveArgumentError(`${what}: count must be a non-negative safe integer, got ${formatValue(count)}`);
  return count;
}

/** How many elements the call moves: `count` where given (each array must hold it), else what `reference` holds. */
function sizeCheck(role: string, has: number, needs: number, exact: boolean, what: string): void {
  if (exact ? has !== needs : has < needs) {
    throw new CollectiveArgumentError(
      `${what}: ${role} has ${has} elements; the call needs ${exact ? '' : 'at least '}${needs}`,
    );
  }
}

/** What one call needs from its memory arguments, after every check. */
interface Resolved {
  readonly sendPtr: bigint;
  readonly recvPtr: bigint;
  /** In NCCL's elements (bytes where the dtype moves as bytes). */
  readonly count: number;
  readonly type: number;
  readonly stream: bigint;
  readonly sources: object[];
}

/**
 * An NCCL communicator: one rank of a group of GPUs that run collectives
 * together. Make one per device within one process ({@link initAll}), or one
 * per process or machine from a shared id ({@link uniqueId},
 * {@link initRank}). Its calls take core Buffers (with a `dtype`) or any
 * viewable array, are ordered on a stream of its device, and return a
 * {@link CollectiveWork} to await. Closing destroys it (ncclCommDestroy),
 * once; a forgotten one is destroyed when collected.
 *
 * Where one thread drives several communicators (initAll), issue their calls
 * inside {@link Communicator.group}, as NCCL asks. Before its first call,
 * cuda-js sets `NCCL_NVLS_ENABLE=0` in `process.env` unless it is set
 * (child processes inherit it): see the README.
 */
export class Communicator implements Disposable {
  /** The device this rank runs on. */
  readonly device: Device;
  /** This rank, in `[0, worldSize)` (ncclCommUserRank). */
  readonly rank: number;
  /** How many ranks the communicator has (ncclCommCount). */
  readonly worldSize: number;
  readonly #owned: OwnedHandle<ncclComm_t>;
  /** Set before close() releases: abort() rather than destroy. Not the owner, so the owner stays collectable. */
  readonly #release: { abort: boolean };

  private constructor(handle: ncclComm_t, device: Device) {
    this.device = device;
    this.rank = nccl.ncclCommUserRank(handle);
    this.worldSize = nccl.ncclCommCount(handle);
    const release = { abort: false };
    this.#release = release;
    this.#owned = new OwnedHandle(
      handle,
      this,
      (h) => (release.abort ? nccl.ncclCommAbort(h) : nccl.ncclCommDestroy(h)),
      'Communicator',
    );
  }

  /** The version of the NCCL library that was loaded (`2.27.3`; ncclGetVersion). */
  static get version(): string {
    applyNcclEnvironmentDefaults();
    const v = nccl.ncclGetVersion();
    return `${Math.floor(v / 10000)}.${Math.floor(v / 100) % 100}.${v % 100}`;
  }

  /**
   * A new communicator id (ncclGetUniqueId), as base64 text: one rank makes
   * it and sends it to every other (a message to a child process, an
   * environment variable, a file); each passes it to {@link initRank}. The id
   * names a listening socket of this process, which serves the ranks' setup.
   */
  static uniqueId(): string {
    applyNcclEnvironmentDefaults();
    const id = nccl.ncclGetUniqueId();
    return encodeUniqueId(id.internal instanceof Uint8Array ? id.internal : new Uint8Array(UNIQUE_ID_BYTES));
  }

  /**
   * One communicator per device of this process (ncclCommInitAll): rank i
   * on `devices[i]`. Their calls must be issued in one {@link group}.
   */
  static initAll(devices: readonly (Device | number)[]): Communicator[] {
    const what = 'Communicator.initAll';
    if (!Array.isArray(devices) || devices.length === 0)
      throw new CollectiveArgumentError(
        `${what}: devices must be a non-empty array of Devices or ordinals, got ${formatValue(devices)}`,
      );
    const seen = new Set<number>();
    for (const [i, d] of devices.entries()) {
      const ordinal = deviceOrdinal(d, `${what}: devices[${i}]`);
      if (seen.has(ordinal))
        throw new CollectiveArgumentError(`${what}: device ${ordinal} is listed twice; NCCL takes each device once`);
      seen.add(ordinal);
    }
    const list = devices.map((d, i) => toDevice(d, `${what}: devices[${i}]`));
    applyNcclEnvironmentDefaults();
    const comms = keepingCurrentContext(() => nccl.ncclCommInitAll(list.map((d) => d.ordinal)));
    return comms.map((handle, i) => new Communicator(handle, list[i]!));
  }

  /**
   * Joins, as `rank` of `worldSize`, the communicator of `id` on `device`
   * (ncclCommInitRank). Blocks until every rank has joined: in one process,
   * join several ranks inside {@link group}, or use {@link initAll}.
   */
  static initRank(options: InitRankOptions): Communicator {
    const what = 'Communicator.initRank';
    options = checkOptions(options, ['id', 'rank', 'worldSize', 'device'], what, '{ id, rank, worldSize, device }');
    const bytes = decodeUniqueId(options.id, what);
    const { rank, worldSize } = options;
    if (typeof worldSize !== 'number' || !Number.isInteger(worldSize) || worldSize < 1 || worldSize > 0x7fffffff) {
      throw new CollectiveArgumentError(`${what}: worldSize must be a positive integer, got ${formatValue(worldSize)}`);
    }
    if (typeof rank !== 'number' || !Number.isInteger(rank) || rank < 0 || rank >= worldSize) {
      throw new CollectiveArgumentError(
        `${what}: rank must be an integer in [0, ${worldSize}), got ${formatValue(rank)}`,
      );
    }
    const device = options.device ?? 0;
    deviceOrdinal(device, `${what}: device`);
    const target = toDevice(device, what);
    applyNcclEnvironmentDefaults();
    target.ensureCurrent(); // NCCL joins on the current device
    return new Communicator(nccl.ncclCommInitRank(worldSize, { internal: bytes }, rank), target);
  }

  /**
   * Runs `fn`, which issues collective calls, between ncclGroupStart and
   * ncclGroupEnd: NCCL then issues them together. Needed where one thread
   * drives several communicators, and for send/recv pairs that would wait
   * for each other. `fn` must be synchronous. The calls' works, and the
   * returned one, complete when the group's calls have.
   */
  static group(fn: () => unknown): CollectiveWork {
    applyNcclEnvironmentDefaults();
    return runGroup(fn);
  }

  /** The ncclComm_t handle; ClosedResourceError after close. */
  get handle(): ncclComm_t {
    return this.#owned.handle;
  }

  get closed(): boolean {
    return this.#owned.closed;
  }

  /**
   * An error that NCCL reported for this communicator's work after the call
   * returned (a peer that failed, a network error): ncclCommGetAsyncError.
   * Undefined while there is none.
   */
  asyncError(): NcclError | undefined {
    const code = nccl.ncclCommGetAsyncError(this.handle);
    if (code === nccl.ncclResult_t.ncclSuccess || code === nccl.ncclResult_t.ncclInProgress) return undefined;
    const codeName = nccl.ncclResult_t[code] ?? `ncclResult_${code}`;
    return new NcclError(
      code,
      codeName,
      'ncclCommGetAsyncError',
      nccl.ncclGetErrorString(code) ?? '',
      nccl.ncclGetLastError(0n as ncclComm_t) ?? undefined,
    );
  }

  /**
   * Reduces `send` of every rank into `recv` of every rank (ncclAllReduce).
   * `send` and `recv` may be the same array (in place).
   */
  allReduce(send: CollectiveArray, recv: CollectiveArray, options: ReductionOptions = {}): CollectiveWork {
    const what = 'Communicator.allReduce';
    options = checkOptions(options, ['stream', 'dtype', 'count', 'op'], what);
    const op = reduceOp(options.op, what);
    const r = this.#resolve(what, options, send, recv, { reducing: true, send: 1, recv: 1, reference: 'send' });
    this.#enter(r.stream);
    nccl.ncclAllReduce(
      r.sendPtr as CUdeviceptr,
      r.recvPtr as CUdeviceptr,
      r.count,
      r.type,
      op,
      this.handle,
      r.stream as CUstream,
    );
    return issued(this.device, r.stream, r.sources);
  }

  /** Sends `send` of rank `root` to `recv` of every rank (ncclBroadcast); `send` is read on the root only (null elsewhere). */
  broadcast(send: CollectiveArray | null, recv: CollectiveArray, options: RootedOptions = {}): CollectiveWork {
    const what = 'Communicator.broadcast';
    options = checkOptions(options, ['stream', 'dtype', 'count', 'root'], what);
    const root = this.#rank(options.root, 'root', what);
    if (send === null && root === this.rank)
      throw new CollectiveArgumentError(`${what}: this rank is the root: send must be the array to broadcast`);
    const r = this.#resolve(what, options, send ?? undefined, recv, {
      reducing: false,
      send: 1,
      recv: 1,
      reference: send === null ? 'recv' : 'send',
    });
    this.#enter(r.stream);
    nccl.ncclBroadcast(
      (send === null ? r.recvPtr : r.sendPtr) as CUdeviceptr,
      r.recvPtr as CUdeviceptr,
      r.count,
      r.type,
      root,
      this.handle,
      r.stream as CUstream,
    );
    return issued(this.device, r.stream, r.sources);
  }

  /** Reduces `send` of every rank into `recv` of rank `root` (ncclReduce); `recv` is written on the root only (null elsewhere). */
  reduce(
    send: CollectiveArray,
    recv: CollectiveArray | null,
    options: ReductionOptions & RootedOptions = {},
  ): CollectiveWork {
    const what = 'Communicator.reduce';
    options = checkOptions(options, ['stream', 'dtype', 'count', 'op', 'root'], what);
    const op = reduceOp(options.op, what);
    const root = this.#rank(options.root, 'root', what);
    if (recv === null && root === this.rank)
      throw new CollectiveArgumentError(`${what}: this rank is the root: recv must be the array for the result`);
    const r = this.#resolve(what, options, send, recv ?? undefined, {
      reducing: true,
      send: 1,
      recv: 1,
      reference: 'send',
    });
    this.#enter(r.stream);
    nccl.ncclReduce(
      r.sendPtr as CUdeviceptr,
      (recv === null ? r.sendPtr : r.recvPtr) as CUdeviceptr,
      r.count,
      r.type,
      op,
      root,
      this.handle,
      r.stream as CUstream,
    );
    return issued(this.device, r.stream, r.sources);
  }

  /** Gathers `send` of every rank into `recv` (worldSize times as large), rank by rank (ncclAllGather). */
  allGather(send: CollectiveArray, recv: CollectiveArray, options: CollectiveOptions = {}): CollectiveWork {
    const what = 'Communicator.allGather';
    options = checkOptions(options, ['stream', 'dtype', 'count'], what);
    const r = this.#resolve(what, options, send, recv, {
      reducing: false,
      send: 1,
      recv: this.worldSize,
      reference: 'send',
    });
    this.#enter(r.stream);
    nccl.ncclAllGather(
      r.sendPtr as CUdeviceptr,
      r.recvPtr as CUdeviceptr,
      r.count,
      r.type,
      this.handle,
      r.stream as CUstream,
    );
    return issued(this.device, r.stream, r.sources);
  }

  /** Reduces `send` (worldSize blocks) of every rank, block `rank` of the result into `recv` of each (ncclReduceScatter). */
  reduceScatter(send: CollectiveArray, recv: CollectiveArray, options: ReductionOptions = {}): CollectiveWork {
    const what = 'Communicator.reduceScatter';
    options = checkOptions(options, ['stream', 'dtype', 'count', 'op'], what);
    const op = reduceOp(options.op, what);
    const r = this.#resolve(what, options, send, recv, {
      reducing: true,
      send: this.worldSize,
      recv: 1,
      reference: 'recv',
    });
    this.#enter(r.stream);
    nccl.ncclReduceScatter(
      r.sendPtr as CUdeviceptr,
      r.recvPtr as CUdeviceptr,
      r.count,
      r.type,
      op,
      this.handle,
      r.stream as CUstream,
    );
    return issued(this.device, r.stream, r.sources);
  }

  /** Sends `data` to rank `peer`, which receives it with {@link recv} (ncclSend); pair them inside a {@link group}. */
  send(data: CollectiveArray, peer: number, options: CollectiveOptions = {}): CollectiveWork {
    const what = 'Communicator.send';
    options = checkOptions(options, ['stream', 'dtype', 'count'], what);
    const to = this.#rank(peer, 'peer', what);
    const r = this.#resolve(what, options, data, undefined, { reducing: false, send: 1, recv: 1, reference: 'send' });
    this.#enter(r.stream);
    nccl.ncclSend(r.sendPtr as CUdeviceptr, r.count, r.type, to, this.handle, r.stream as CUstream);
    return issued(this.device, r.stream, r.sources);
  }

  /** Receives into `data` what rank `peer` sends with {@link send} (ncclRecv). */
  recv(data: CollectiveArray, peer: number, options: CollectiveOptions = {}): CollectiveWork {
    const what = 'Communicator.recv';
    options = checkOptions(options, ['stream', 'dtype', 'count'], what);
    const from = this.#rank(peer, 'peer', what);
    const r = this.#resolve(what, options, undefined, data, { reducing: false, send: 1, recv: 1, reference: 'recv' });
    this.#enter(r.stream);
    nccl.ncclRecv(r.recvPtr as CUdeviceptr, r.count, r.type, from, this.handle, r.stream as CUstream);
    return issued(this.device, r.stream, r.sources);
  }

  /** Destroys the communicator (ncclCommDestroy, after its work is done); safe to call twice. */
  close(): void {
    if (this.#owned.closed) return;
    this.device.ensureCurrent();
    this.#owned.close();
  }

  /** Destroys the communicator without waiting for its work, which stops (ncclCommAbort): the way out when a peer failed. */
  abort(): void {
    if (this.#owned.closed) return;
    this.#release.abort = true;
    this.device.ensureCurrent();
    this.#owned.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  toString(): string {
    return `Communicator(rank ${this.rank} of ${this.worldSize} on ${this.device}${this.closed ? ', closed' : ''})`;
  }

  #rank(value: unknown, name: string, what: string): number {
    const rank = value ?? 0;
    if (typeof rank !== 'number' || !Number.isInteger(rank) || rank < 0 || rank >= this.worldSize) {
      throw new CollectiveArgumentError(
        `${what}: ${name} must be a rank in [0, ${this.worldSize}), got ${formatValue(value)}`,
      );
    }
    return rank;
  }

  /** Makes the communicator's device current for the call; a stream of another device is refused (NCCL runs on its own device). */
  #enter(stream: bigint): void {
    if (hasSeveralDevices()) {
      const streamDevice = deviceOfStream(stream);
      if (streamDevice !== undefined && streamDevice !== this.device) {
        throw new DeviceMismatchError(
          `${this}: the stream belongs to ${streamDevice}; a communicator's calls run on a stream of its own device`,
        );
      }
    }
    this.device.ensureCurrent();
  }

  /**
   * The checked memory, count and type of a call. `send` and `recv` give how
   * many elements each holds per element of the call (the world size for the
   * gathered or scattered side); `reference` the side whose size sets the
   * count when no `count` is given.
   */
  #resolve(
    what: string,
    options: CollectiveOptions,
    send: CollectiveArray | undefined,
    recv: CollectiveArray | undefined,
    shape: {
      readonly reducing: boolean;
      readonly send: number;
      readonly recv: number;
      readonly reference: 'send' | 'recv';
    },
  ): Resolved {
    const dtypeGiven = dtypeOption(options.dtype, what);
    const countGiven = checkCount(options.count, what);
    const stream = streamHandle(options.stream ?? 0n, `${what}: stream`);
    if (this.closed) throw new ClosedResourceError('Communicator');
    const consumer = stream === 0n ? 1n : stream;
    const sendMemory: CollectiveMemory | undefined =
      send === undefined ? undefined : collectiveMemory(send, 'send', this.device, consumer, false, what);
    const recvMemory: CollectiveMemory | undefined =
      recv === undefined ? undefined : collectiveMemory(recv, 'recv', this.device, consumer, true, what);
    const dtype = callDType(dtypeGiven, [sendMemory, recvMemory], what);
    const element = ncclElementType(dtype, shape.reducing, what);
    const sendCount = sendMemory === undefined ? undefined : elementCount(sendMemory, dtype, 'send', what);
    const recvCount = recvMemory === undefined ? undefined : elementCount(recvMemory, dtype, 'recv', what);
    const referenceCount = shape.reference === 'send' ? sendCount : recvCount;
    const referenceShare = shape.reference === 'send' ? shape.send : shape.recv;
    let count = countGiven;
    if (count === undefined) {
      const total = referenceCount ?? 0;
      if (total % referenceShare !== 0)
        throw new CollectiveArgumentError(
          `${what}: ${shape.reference} has ${total} elements, not a multiple of the world size ${referenceShare}`,
        );
      count = total / referenceShare;
    }
    const exact = countGiven === undefined;
    if (sendCount !== undefined) sizeCheck('send', sendCount, count * shape.send, exact, what);
    if (recvCount !== undefined) sizeCheck('recv', recvCount, count * shape.recv, exact, what);
    if (shape.reducing && dtype.name.startsWith('float8')) checkFloat8Reduction(this.device, dtype.name, what);
    if (sendMemory !== undefined && recvMemory !== undefined) {
      const block = BigInt(count * dtype.itemsize) * BigInt(this.rank);
      // in place: the same memory, or this rank's block of the gathered (allGather) or scattered (reduceScatter) side
      const [inPlaceSend, form] =
        shape.recv > 1
          ? [recvMemory.ptr + block, `send at this rank's block of recv, recv + ${block}`]
          : shape.send > 1
            ? [recvMemory.ptr - block, `recv at this rank's block of send, send + ${block}`]
            : [recvMemory.ptr, 'send and recv the same memory'];
      checkCollectiveOverlap(
        sendMemory.ptr,
        count * shape.send * dtype.itemsize,
        recvMemory.ptr,
        count * shape.recv * dtype.itemsize,
        inPlaceSend,
        form,
        what,
      );
    }
    const ncclCount = count * element.elementsPerItem;
    if (!Number.isSafeInteger(ncclCount))
      throw new CollectiveArgumentError(`${what}: ${count} elements of ${dtype.name} exceed what NCCL counts`);
    const sources: object[] = [];
    if (sendMemory) sources.push(sendMemory.source);
    if (recvMemory) sources.push(recvMemory.source);
    return {
      sendPtr: sendMemory?.ptr ?? 0n,
      recvPtr: recvMemory?.ptr ?? 0n,
      count: ncclCount,
      type: element.type,
      stream,
      sources,
    };
  }
}

/** NCCL's first version with float8 types (2.24), whose reductions need compute capability 9.0. */
const NCCL_FLOAT8_VERSION = 22400;

/** A float8 reduction where NCCL or the device has none: a named error before NCCL (an older NCCL takes the type's number as another). */
function checkFloat8Reduction(device: Device, name: string, what: string): void {
  const version = nccl.ncclGetVersion();
  if (version < NCCL_FLOAT8_VERSION) {
    throw new CollectiveArgumentError(
      `${what}: NCCL ${Communicator.version} has no ${name} reductions (NCCL 2.24 and newer have them); reduce in float16, bfloat16 or float32`,
    );
  }
  const { major, minor } = device.computeCapability;
  if (major < 9)
    throw new CollectiveArgumentError(
      `${what}: NCCL reduces ${name} on compute capability 9.0 and newer; ${device} is ${major}.${minor}`,
    );
}

/** Runs `fn` and gives back the context that was current before it (NCCL's setup switches devices). */
function keepingCurrentContext<T>(fn: () => T): T {
  const before = driver.cuCtxGetCurrent();
  try {
    return fn();
  } finally {
    if (before !== 0n) driver.cuCtxSetCurrent(before);
  }
}
