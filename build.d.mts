// The shape of build.mjs (plain JavaScript run by tsx), for the TypeScript that imports it.
export declare const DIST: string;
export declare const METAFILE: string;

/** Paths of the built entry script and stylesheet, under dist/. */
export interface BuiltEntry {
  js: string;
  css: string;
}

export interface Bundle {
  /** Puts the bundle in dist/. */
  write(): Promise<BuiltEntry>;
}

export interface DistBuild {
  entry: BuiltEntry;
  /** Bundles the files on disk again, into memory (forms whose schemas did not change are reused). */
  bundle(): Promise<Bundle>;
  dispose(): Promise<void>;
}

export declare function buildDist(): Promise<DistBuild>;

/** esbuild's metafile, as far as the bundle checks read it. */
export interface Metafile {
  outputs: Record<string, { entryPoint?: string; imports: { path: string; kind: string }[]; inputs: Record<string, unknown> }>;
}

/** The given scripts and every chunk they import statically: what a page loads with them. */
export declare function staticClosure(metafile: Metafile, roots: string[]): string[];

/** Where the server is built for plain node: build/server/main.mjs and its migrations. */
export declare const SERVER_BUILD: string;
export declare function buildServer(): Promise<void>;
