// The host adapters behind subpath exports (`@cuda-js/memory-view/adapters/<name>`):
// the main entry knows each one's arrays by their fields (host-arrays.ts) and
// the subpath to name, and views them once that subpath has been imported,
// which registers the adapter here.
import { formatValue, withArticle } from '../format-value.js';
import { AdapterNotImportedError } from '../errors.js';
import type { StridedMemoryView } from '../strided-memory-view.js';
import {
  isArrowVector,
  isNdarray,
  isStdlibNdarray,
  type ArrowVectorLike,
  type NdarrayLike,
  type StdlibNdarrayLike,
} from './host-arrays.js';

/** The arrays that each adapter views. */
interface HostAdapterArrays {
  'stdlib-ndarray': StdlibNdarrayLike;
  ndarray: NdarrayLike;
  arrow: ArrowVectorLike;
}

/** @internal The name of a host adapter; its module is `@cuda-js/memory-view/adapters/<name>`. */
export type HostAdapterName = keyof HostAdapterArrays;

interface HostAdapter {
  readonly name: HostAdapterName;
  /** What its arrays are called in messages. */
  readonly arrays: string;
  readonly recognizes: (obj: object) => boolean;
  /** Set when the adapter's module is imported. */
  view: ((array: object) => StridedMemoryView) | undefined;
}

/** The subpath that registers every adapter. */
export const ALL_ADAPTERS_SUBPATH = '@cuda-js/memory-view/adapters';

/** The same modules under the `cuda-js` package (what an install of `cuda-js` alone resolves). */
const CUDA_JS_ADAPTERS_SUBPATH = 'cuda-js/adapters';

// In the order fromAny tries them.
const ADAPTERS: readonly HostAdapter[] = [
  { name: 'stdlib-ndarray', arrays: 'stdlib ndarray', recognizes: isStdlibNdarray, view: undefined },
  { name: 'ndarray', arrays: 'scijs ndarray', recognizes: isNdarray, view: undefined },
  { name: 'arrow', arrays: 'Apache Arrow vector', recognizes: isArrowVector, view: undefined },
];

function adapterNamed(name: HostAdapterName): HostAdapter {
  return ADAPTERS.find((a) => a.name === name)!;
}

/** @internal The module that registers the adapter `name`. */
export function adapterSubpath(name: HostAdapterName): string {
  return `${ALL_ADAPTERS_SUBPATH}/${name}`;
}

/** @internal Called by each adapter's module when it is imported: from then on, fromAny views its arrays. */
export function registerHostAdapter<N extends HostAdapterName>(
  name: N,
  view: (array: HostAdapterArrays[N]) => StridedMemoryView,
): void {
  // The registry calls it only with arrays that the adapter's own recognizer accepted.
  adapterNamed(name).view = view as (array: object) => StridedMemoryView;
}

function notImported(adapter: HostAdapter, what: string): AdapterNotImportedError {
  const subpath = adapterSubpath(adapter.name);
  return new AdapterNotImportedError(
    subpath,
    `${what}: import '${subpath}' (or '${ALL_ADAPTERS_SUBPATH}' for every host adapter; with the cuda-js package, '${CUDA_JS_ADAPTERS_SUBPATH}/${adapter.name}' or '${CUDA_JS_ADAPTERS_SUBPATH}') once in the program to view it`,
  );
}

/** The first adapter that recognizes `obj` (the order fromAny tries them in). */
function recognizerOf(obj: object): HostAdapter | undefined {
  return ADAPTERS.find((a) => a.recognizes(obj));
}

function notLoadedFor(adapter: HostAdapter, obj: object): AdapterNotImportedError {
  return notImported(
    adapter,
    `${formatValue(obj)} looks like ${withArticle(adapter.arrays)}, whose adapter is not loaded`,
  );
}

/**
 * @internal A view of `obj` by the first adapter that recognizes it;
 * undefined when none does. {@link AdapterNotImportedError} when that
 * adapter's module was not imported.
 */
export function viewWithHostAdapter(obj: object): StridedMemoryView | undefined {
  const adapter = recognizerOf(obj);
  if (adapter === undefined) return undefined;
  if (adapter.view === undefined) throw notLoadedFor(adapter, obj);
  return adapter.view(obj);
}

/** @internal Whether a loaded adapter recognizes `obj`. */
export function canViewWithHostAdapter(obj: object): boolean {
  return recognizerOf(obj)?.view !== undefined;
}

/** @internal The error for an array that an adapter recognizes but whose module was not imported; undefined otherwise. */
export function adapterNotImportedFor(obj: object): AdapterNotImportedError | undefined {
  const adapter = recognizerOf(obj);
  return adapter === undefined || adapter.view !== undefined ? undefined : notLoadedFor(adapter, obj);
}

/** @internal A view through the adapter `name` (its `from*` factory), or {@link AdapterNotImportedError} naming the module to import. */
export function viewWithAdapter<N extends HostAdapterName>(
  name: N,
  array: HostAdapterArrays[N],
  factory: string,
): StridedMemoryView {
  const adapter = adapterNamed(name);
  if (adapter.view === undefined)
    throw notImported(
      adapter,
      `StridedMemoryView.${factory} views ${withArticle(adapter.arrays)} through its adapter, which is not loaded`,
    );
  return adapter.view(array);
}

/** @internal The host arrays that the adapters view, and where each adapter is, for the message of an array that nothing views. */
export function hostAdapterList(): string {
  return ADAPTERS.map(
    (a) =>
      `${a.arrays}s (${a.view === undefined ? `import '${adapterSubpath(a.name)}' or '${CUDA_JS_ADAPTERS_SUBPATH}/${a.name}'` : 'loaded'})`,
  ).join(', ');
}
