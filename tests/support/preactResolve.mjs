// Node's resolve hook for the unit project: the packages Node loads itself (rjsf, swr, wouter,
// react-hot-toast) find Preact's React API where they import React's, as the build resolves them
// (src/node/reactRuntime.ts), without Vitest transforming them. swr's hook shim goes to Preact too:
// it is CommonJS, whose own require of React no hook sees.
export async function resolve(specifier, context, next) {
  const react = /^(?:react|react-dom)(\/.*)?$/.exec(specifier);
  if (react) return next(`preact/compat${react[1] ?? ''}`, context);
  if (/^use-sync-external-store\/shim(?:\/index\.js)?$/.test(specifier)) return next('preact/compat', context);
  return next(specifier, context);
}
