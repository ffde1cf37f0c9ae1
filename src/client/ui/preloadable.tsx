import { type ComponentType, lazy, useState } from 'react';

/**
 * A component whose code loads when it is first drawn, as with React's `lazy`, and can be loaded
 * ahead (`load`): once loaded, it draws at once. `lazy` alone suspends on its first draw even when
 * the code is in (its import() settles a turn later); a page hydrating the server's drawing would
 * then wait that turn, and React's reveal throttle after it (~300 ms), before taking it over.
 */
export function preloadable<Module, Props extends object>(
  importModule: () => Promise<Module>,
  componentOf: (module: Module) => ComponentType<Props>,
): { Component: ComponentType<Props>; load: () => Promise<Module> } {
  let loaded: Module | undefined;
  const load = () =>
    importModule().then((module) => {
      loaded = module;
      return module;
    });
  const Lazy = lazy(() => load().then((module) => ({ default: componentOf(module) })));
  function Component(props: Props) {
    // Chosen once: switching from the lazy one to the loaded one later would draw it afresh, losing its state.
    const [Drawn] = useState<ComponentType<Props>>(() => (loaded ? componentOf(loaded) : Lazy));
    return <Drawn {...props} />;
  }
  return { Component, load };
}
