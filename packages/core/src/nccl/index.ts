export {
  Communicator,
  type CollectiveArray,
  type CollectiveOptions,
  type ReductionOptions,
  type RootedOptions,
  type InitRankOptions,
} from './communicator.js';
export { CollectiveWork } from './collective-work.js';
export { REDUCIBLE_DTYPES, type ReduceOp } from './nccl-types.js';
