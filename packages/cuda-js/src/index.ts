/**
 * cuda-js: the CUDA stack for TypeScript and Node.js in one import.
 * Each layer is also its own package (`@cuda-js/pathfinder`, ...).
 */
export * from '@cuda-js/pathfinder';
export { libraryReport, type LibraryReport, type LibraryReportRow } from './library-report.js';
export { systemReport, type SystemReport, type DeviceSummary } from './system-report.js';
