/**
 * What every page loads with the entry (main.tsx), gathered so that the build puts it in one
 * chunk. esbuild puts code shared by entry points into one chunk per set of entry points that
 * share it, so the modules the entry shares with the screens loaded later (StepPage, the admin
 * page, the card screen…) came out in fifteen small chunks: fifteen requests, six at a time over
 * HTTP/1.1, each a round trip on a slow phone. The entry and every screen loaded later import this
 * module, so whatever it imports is shared by all of them alike and lands in one chunk
 * (tests/build.test.ts counts the first page's scripts).
 */
import 'react-dom/client';
import 'react-hot-toast';
import 'swr';
import 'wouter';
import '../runtime/config.js';
import '../ui/Dialog.js';
import '../ui/Layout.js';
import '../runtime/locale.js';
import '../runtime/price.js';
import '../runtime/reads.js';
import '../screens/MessageScreen.js';
import '../screens/parts.js';
import '../runtime/stepReads.js';
import '../ui/StepLinks.js';
import '../runtime/stepFlow.js';
