/**
 * Where the programs of rpi's tests come from: pier's own equivalents (test/fixtures/rpi, what `npm test` runs)
 * or an rpi checkout, read unchanged (what `npm run rpi-fixtures` runs). A bare mirror is read with `git show`.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../helpers/pier-cli.js";

export const RPI_FIXTURES_DIR = "crates/pi-coding/tests/fixtures/extensions";
export const RPI_EXAMPLE = "examples/quickjs_extension.mjs";
const RPI_TESTS = "crates/pi-coding/tests/extensions.rs";

export interface RpiSource {
	/** Shown in reports: whose programs these are. */
	readonly label: string;
	/** The text of rpi fixture `name` (a file of rpi's fixtures directory, or `quickjs_extension.mjs`). */
	fixture(name: string): string;
	/**
	 * The `index`-th extension program rpi test `test` writes inline (counting from 0). For a program rpi builds
	 * with `format!`, `args` fills its `{name}` placeholders.
	 */
	inline(test: string, index: number, args?: Record<string, string>): string;
}

/** pier's own equivalents, under the names of rpi's files. */
export function ownSource(): RpiSource {
	const dir = join(REPO_ROOT, "test", "fixtures", "rpi");
	return {
		label: "pier's equivalents (test/fixtures/rpi)",
		fixture: (name) => readFileSync(join(dir, name), "utf8"),
		inline(test, index, args = {}) {
			let text = readFileSync(join(dir, "inline", `${test}.${index}.mjs`), "utf8");
			for (const [name, value] of Object.entries(args)) text = text.split(`{${name}}`).join(value);
			return text;
		},
	};
}

/** rpi's own files, from a checkout (a directory with crates/) or a bare git mirror. */
export function rpiSource(path: string): RpiSource {
	const bare = !existsSync(join(path, "crates")) && existsSync(join(path, "HEAD"));
	if (!bare && !existsSync(join(path, RPI_TESTS))) {
		throw new Error(`${path} is neither an rpi checkout (no ${RPI_TESTS}) nor a bare git mirror of one (no HEAD)`);
	}
	const read = (file: string): string => {
		if (!bare) return readFileSync(join(path, file), "utf8");
		try {
			return execFileSync("git", ["-C", path, "show", `HEAD:${file}`], {
				encoding: "utf8",
				maxBuffer: 64 << 20,
				stdio: ["ignore", "pipe", "pipe"],
			});
		} catch {
			throw new Error(`${path}: HEAD has no ${file}`);
		}
	};
	let programs: Map<string, string[]> | undefined;
	return {
		label: `rpi (${path})`,
		fixture: (name) => read(name === "quickjs_extension.mjs" ? RPI_EXAMPLE : `${RPI_FIXTURES_DIR}/${name}`),
		inline(test, index, args) {
			programs ??= inlinePrograms(read(RPI_TESTS));
			const program = programs.get(test)?.[index];
			if (program === undefined) throw new Error(`${RPI_TESTS} has no inline program #${index} in fn ${test}`);
			if (!args) return program;
			return program.replace(/\{\{|\}\}|\{(\w+)\}/g, (token, name?: string) => {
				if (!name) return token[0]!;
				if (args[name] === undefined) throw new Error(`fn ${test}: no value for {${name}}`);
				return args[name];
			});
		},
	};
}

/** The list of rpi fixture files, for the harness to say which it has no check for. */
export function rpiFixtureNames(path: string): string[] {
	const bare = !existsSync(join(path, "crates"));
	const listing = bare
		? execFileSync("git", ["-C", path, "ls-tree", "--name-only", `HEAD:${RPI_FIXTURES_DIR}`], { encoding: "utf8" })
		: execFileSync("ls", [join(path, RPI_FIXTURES_DIR)], { encoding: "utf8" });
	return listing
		.split("\n")
		.filter((name) => name.endsWith(".mjs"))
		.concat("quickjs_extension.mjs");
}

/**
 * The extension programs of each test function of rpi's extensions.rs: every Rust string literal (raw `r#"…"#`
 * or quoted with escapes) holding `export default`, in order.
 */
export function inlinePrograms(rust: string): Map<string, string[]> {
	const byTest = new Map<string, string[]>();
	let current: string[] | undefined;
	let i = 0;
	while (i < rust.length) {
		const fn = /^fn (\w+)\s*\(/.exec(rust.slice(i, i + 200));
		if (fn && (i === 0 || /\s/.test(rust[i - 1]!))) {
			current = [];
			byTest.set(fn[1]!, current);
			i += fn[0].length;
			continue;
		}
		if (rust.startsWith('r#"', i)) {
			const end = rust.indexOf('"#', i + 3);
			const text = rust.slice(i + 3, end);
			if (text.includes("export default")) current?.push(text);
			i = end + 2;
			continue;
		}
		if (rust[i] === '"' && rust[i - 1] !== "'") {
			let j = i + 1;
			while (j < rust.length && rust[j] !== '"') j += rust[j] === "\\" ? 2 : 1;
			const literal = rust.slice(i, j + 1);
			if (literal.includes("export default")) current?.push(unescapeRust(literal.slice(1, -1)));
			i = j + 1;
			continue;
		}
		i++;
	}
	return byTest;
}

/** The value of a quoted Rust string literal's body: its escapes, and `\` + newline skipping the indentation. */
function unescapeRust(body: string): string {
	const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", "0": "\0", "\\": "\\", '"': '"', "'": "'" };
	return body.replace(
		/\\(u\{([0-9a-fA-F]+)\}|x([0-9a-fA-F]{2})|\n\s*|.)/g,
		(_all, code: string, u?: string, x?: string) => {
			const hex = u ?? x;
			if (hex) return String.fromCodePoint(Number.parseInt(hex, 16));
			if (code.startsWith("\n")) return "";
			const value = simple[code];
			if (value === undefined) throw new Error(`unknown Rust string escape \\${code}`);
			return value;
		},
	);
}
