// Kept only for the room another branch is changing (runs), which imports loadWorldRevision from here; the second pass
// points it at ./worlds/load.ts and deletes this file.
export { loadWorldRevision } from './worlds/load.ts';
