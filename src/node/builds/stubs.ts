/** Packages rjsf imports that the browser does without, each bundled as a stub of the client's. */
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

/** fast-uri, which @rjsf/utils imports to resolve a "$ref" against its "$id", replaced by a stub: no "$ref" reaches the browser (src/client/app/uriStub.ts). */
export const uriStubPlugin: esbuild.Plugin = {
  name: 'uri-stub',
  setup(build) {
    build.onResolve({ filter: /^fast-uri$/ }, () => ({ path: join(CLIENT, 'app', 'uriStub.ts') }));
  },
};
