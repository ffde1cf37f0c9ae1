/** Stylesheets are imported for their side effect; esbuild bundles them into one file. */
declare module '*.css';
