/**
 * The social sign-in buttons (SocialSignIn.tsx) in a chunk of their own: only the steps that show
 * them load them, and the build preloads them on those steps' routes (src/node/builds/pageScripts.ts), so the other steps' first visits do without them.
 */
import { preloadable } from '../ui/preloadable.js';

export const { Component: SocialSignIn, load: loadSocialSignIn } = preloadable(
  () => import('./SocialSignIn.js'),
  (module) => module.SocialSignIn,
);
