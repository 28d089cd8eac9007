import { findLibrary } from '@cuda-js/pathfinder';

/** Whether pathfinder finds `name` on this machine (tests of a library skip, with the reason, where it is absent). */
export function haveLibrary(name: string): boolean {
  try {
    findLibrary(name);
    return true;
  } catch {
    return false;
  }
}
