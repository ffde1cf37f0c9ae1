// The unit project's IndexedDB, as a browser has it (happy-dom and Node have none): the drafts
// (src/client/runtime/drafts.ts) are kept as on a device, in memory. A test that keeps drafts
// removes them first (removeAllDrafts): the files of a worker share it.
import 'fake-indexeddb/auto';
