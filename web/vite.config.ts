import { fileURLToPath } from "node:url";
import preact from "@preact/preset-vite";
import { defineConfig } from "vite";
import { serviceWorker } from "./sw-plugin.js";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
	root,
	plugins: [preact(), serviceWorker()],
	build: { outDir: fileURLToPath(new URL("../dist/web", import.meta.url)), emptyOutDir: true, sourcemap: true },
});
