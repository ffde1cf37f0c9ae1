/**
 * Stands in for rjsf's "allOf" merger (@rjsf/utils' shallowAllOfMerge, with @x0k/json-schema-merge:
 * 4 KB Brotli) when no form the build makes has an "allOf" (src/node/build.ts, allOfMergerPlugin):
 * a call here is a build's mistake, said as such.
 */
export default function allOfInTheBrowser(): never {
  throw new Error('A form schema in the browser holds an "allOf", and the build left rjsf\'s allOf merger out (allOfMergerPlugin)');
}
