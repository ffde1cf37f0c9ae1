/**
 * What every page loads with the entry (main.tsx), in one chunk: the modules the entry shares with
 * the pages, screens and forms loaded later. The build makes the entry and each module loaded by
 * import() import this one (src/node/builds/sharedChunk.ts), so everything named here is
 * shared by all of them alike; tests/build.test.ts counts the first page's scripts. No product
 * module imports it.
 */
// What every step's precompiled validators share (build/generated/forms): Ajv's runtime helpers.
import 'ajv/dist/runtime/equal';
import 'ajv/dist/runtime/ucs2length';
import 'react-dom/client';
import 'wouter';
import '../runtime/config.js';
import '../runtime/locale.js';
import '../runtime/price.js';
import '../runtime/reads.js';
import '../runtime/stepFlow.js';
import '../runtime/stepReads.js';
import '../screens/MessageScreen.js';
import '../screens/parts.js';
import '../ui/Dialog.js';
import '../ui/Layout.js';
import '../ui/PageSuspense.js';
import '../ui/rideRequestPanel.js';
import '../ui/StepLinks.js';
