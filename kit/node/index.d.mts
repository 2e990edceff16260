/** NodeNext resolves an import of "./index.mjs" to this file; the declarations live in index.d.ts. */
export * from "./index.js";
