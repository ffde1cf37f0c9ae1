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
