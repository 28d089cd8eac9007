export {
  type CheckOptionsSettings,
  checkOptions,
  type OptionRule,
  type OptionTable,
  type OptionTableOf,
} from './check-options.js';
export { describeValue, type OptionProblem } from './option-problem.js';
export { editDistance, suggestName } from './suggest-name.js';
export {
  isAnything,
  isArray,
  isBoolean,
  isEither,
  isFiniteNumber,
  isFunction,
  isInteger,
  isIntegerIn,
  isNonEmptyString,
  isOneOf,
  isPlainObject,
  isString,
  type ValueCheck,
} from './value-checks.js';
