// PGlite's extensions are package subpath exports, which the repository's `moduleResolution: node` does not read;
// their types are the same files under dist/ (vitest resolves the exports themselves at run time).
declare module '@electric-sql/pglite/vector' {
  export { vector } from '@electric-sql/pglite/dist/vector/index';
}
declare module '@electric-sql/pglite/contrib/pg_trgm' {
  export { pg_trgm } from '@electric-sql/pglite/dist/contrib/pg_trgm';
}
