/** The kinds of code an {@link ObjectCode} holds. */
export type ObjectCodeType = 'cubin' | 'ptx' | 'ltoir' | 'fatbin' | 'object' | 'library';

/** Every {@link ObjectCodeType}. */
export const OBJECT_CODE_TYPES: readonly ObjectCodeType[] = ['cubin', 'ptx', 'ltoir', 'fatbin', 'object', 'library'];

/** The kinds that the driver loads by itself (cuLibraryLoadData); the others need a Linker first. */
export const LOADABLE_CODE_TYPES: readonly ObjectCodeType[] = ['cubin', 'ptx', 'fatbin'];
