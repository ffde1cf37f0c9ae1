/**
 * Stylesheets are imported for their side effect (esbuild bundles them into one file), or with
 * `{ type: 'text' }` for their text (the staff pages' own, src/client/admin/AdminStyles.tsx).
 */
declare module '*.css';
