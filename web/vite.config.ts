import { fileURLToPath } from "node:url";
import preact from "@preact/preset-vite";
import { defineConfig } from "vite";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
	root,
	plugins: [preact()],
	build: { outDir: fileURLToPath(new URL("../dist/web", import.meta.url)), emptyOutDir: true, sourcemap: true },
});
