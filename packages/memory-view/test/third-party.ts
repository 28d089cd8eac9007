// Loads the test-only third-party addon (test/addons/third_party.cc), built at
// test time, and gives its tensors a JS class as a library would.
import { createRequire } from 'node:module';
import { DLPACK_EXCHANGE_API } from '../src/index.js';
import { buildTestAddon } from './build-addon.js';

export interface ThirdPartyAddon {
  create(n: number): object;
  createDevice(address: bigint, n: number): object;
  createHostAt(address: bigint, n: number): object;
  values(handle: object): Float32Array;
  set(handle: object, i: number, value: number): void;
  makeSlot(handle: object, legacy: boolean, major: number): object;
  consumeSlot(slot: object, legacy: boolean): number;
  holdSlot(slot: object): object | null;
  deleteHeld(held: object): void;
  deleteHeldOnThread(held: object): void;
  slotIsFull(slot: object): boolean;
  sumViaExchange(obj: object): number;
  fillViaExchange(obj: object, value: number): void;
  sumViaDLTensor(obj: object): number;
  describeViaExchange(obj: object): {
    data: bigint;
    deviceType: number;
    deviceId: number;
    byteOffset: number;
    flags: number;
    version: number;
    code: number;
    bits: number;
    lanes: number;
    shape: number[];
    strides: number[];
  };
  allocateVia(obj: object, n: number, deviceType: number): unknown;
  currentStreamVia(obj: object, deviceType: number): bigint;
  deleted(): number;
  live(): number;
  readonly api: object;
  readonly apiV2: object;
  readonly apiV2Alone: object;
}

export const thirdPartyBuild = buildTestAddon('third_party', ['-pthread']);

export function loadThirdParty(): ThirdPartyAddon {
  if (thirdPartyBuild.path === undefined) throw new Error(thirdPartyBuild.reason);
  return createRequire(import.meta.url)(thirdPartyBuild.path) as ThirdPartyAddon;
}

/** The library's tensor class: its exchange API lives on the type, as DLPack asks. */
export function tensorClass(tp: ThirdPartyAddon, api: object = tp.api) {
  return class ThirdPartyTensor {
    constructor(readonly handle: object) {}
    [DLPACK_EXCHANGE_API](): object {
      return api;
    }
  };
}
