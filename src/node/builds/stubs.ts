/** Packages the browser does without (rjsf's, swr's and wouter's), each bundled as a stub of the client's. */
import { join } from 'node:path';
import type * as esbuild from 'esbuild';
import { CLIENT } from './paths.js';

/** markdown-to-jsx, which @rjsf/core imports for markdown descriptions, replaced by a plain-text stub (the bench's anchor has it too). */
export const markdownStubPlugin: esbuild.Plugin = {
  name: 'markdown-stub',
  setup(build) {
    build.onResolve({ filter: /^markdown-to-jsx(\/.*)?$/ }, () => ({ path: join(CLIENT, 'app', 'markdownStub.tsx') }));
  },
};

/** fast-uri and jsonpointer, which @rjsf/utils imports to resolve a "$ref", replaced by a stub: no "$ref" reaches the browser (src/client/app/refStub.ts). */
export const refStubPlugin: esbuild.Plugin = {
  name: 'ref-stub',
  setup(build) {
    build.onResolve({ filter: /^(fast-uri|jsonpointer)$/ }, () => ({ path: join(CLIENT, 'app', 'refStub.ts') }));
  },
};

/** use-sync-external-store's shim, which swr and wouter import, replaced by React's own hook, which the shim answers on React 19 (src/client/app/syncExternalStore.ts). */
export const syncExternalStorePlugin: esbuild.Plugin = {
  name: 'sync-external-store',
  setup(build) {
    build.onResolve({ filter: /^use-sync-external-store\/shim(\/index\.js)?$/ }, () => ({ path: join(CLIENT, 'app', 'syncExternalStore.ts') }));
  },
};
