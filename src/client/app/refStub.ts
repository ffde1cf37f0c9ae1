/**
 * Stands in for fast-uri (6 KB gzip) and jsonpointer, which @rjsf/utils imports only to resolve a
 * schema's "$ref" (against its "$id", then down its path). No "$ref" reaches the browser: the
 * build inlines each one of a form's schema (src/shared/schemaFiles.ts, bundleSchema), so a call
 * here is a build's mistake, said as such.
 */
function refInTheBrowser(): never {
  throw new Error('A form schema in the browser holds a "$ref"; the build inlines every "$ref" (bundleSchema)');
}

/** fast-uri's and jsonpointer's functions that rjsf calls. */
export default { equal: refInTheBrowser, resolve: refInTheBrowser, get: refInTheBrowser };
