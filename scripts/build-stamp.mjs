// `npm test` builds only when `dist/` is not the build of the files here now. `npm install` already built it
// (`prepare`), and a second build of an unchanged checkout is a minute of CI spent on nothing.
//
//   node scripts/build-stamp.mjs write   after a build: record what it was built from
//   node scripts/build-stamp.mjs check   exit 0 when dist/ is the build of these files, 1 otherwise
//
// A file's path, size and modification time stand for its content; a file added or removed changes the list.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const STAMP = join(ROOT, "dist", ".build-stamp");
const INPUT_DIRS = ["src", "test", "bench", "web", "examples", "kit"];
const INPUT_FILES = ["package.json", "package-lock.json", "tsconfig.json", "web/tsconfig.json"];
const SKIP = new Set(["node_modules", "dist", "target", ".git"]);

function walk(dir, out) {
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		if (SKIP.has(entry.name)) continue;
		const path = join(dir, entry.name);
		if (entry.isDirectory()) walk(path, out);
		else if (entry.isFile()) out.push(path);
	}
	return out;
}

function fingerprint() {
	const files = INPUT_DIRS.flatMap((dir) => (existsSync(join(ROOT, dir)) ? walk(join(ROOT, dir), []) : []));
	for (const file of INPUT_FILES) if (existsSync(join(ROOT, file))) files.push(join(ROOT, file));
	const hash = createHash("sha256");
	for (const file of files.sort()) {
		const { size, mtimeMs } = statSync(file);
		hash.update(`${relative(ROOT, file)}\0${size}\0${mtimeMs}\n`);
	}
	return hash.digest("hex");
}

const command = process.argv[2];
if (command === "write") writeFileSync(STAMP, `${fingerprint()}\n`);
else if (command === "check") {
	const fresh = existsSync(STAMP) && readFileSync(STAMP, "utf8").trim() === fingerprint();
	if (fresh) process.stdout.write("dist/ is the build of this checkout: not building again\n");
	process.exit(fresh ? 0 : 1);
} else {
	process.stderr.write("usage: node scripts/build-stamp.mjs write|check\n");
	process.exit(2);
}
