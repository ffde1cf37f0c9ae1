// The shape of build.mjs (plain JavaScript run by tsx), for the TypeScript that imports it.
export declare const DIST: string;
export declare const METAFILE: string;

/** Paths of the built entry script and stylesheet, under dist/. */
export interface BuiltEntry {
  js: string;
  css: string;
}

export interface DistBuild {
  entry: BuiltEntry;
  /** Builds again from the files on disk (forms whose schemas did not change are reused). */
  rebuild(): Promise<BuiltEntry>;
  dispose(): Promise<void>;
}

export declare function buildDist(): Promise<DistBuild>;
