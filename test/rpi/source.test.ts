/**
 * How the rpi-fixtures harness reads rpi: the inline programs of tests/extensions.rs (Rust string literals),
 * and fixtures from a checkout or a bare mirror. A small fake rpi tree stands in for the real one (not in CI).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { tempDir } from "../helpers/pier-cli.js";
import { inlinePrograms, RPI_EXAMPLE, RPI_FIXTURES_DIR, rpiFixtureNames, rpiSource } from "./source.js";

const RUST = String.raw`
fn helper() -> &'static str { "not a program" }

#[tokio::test]
async fn raw_and_quoted() -> Result<()> {
    let quote = '"';
    std::fs::write(a, r#"
export default function (pi) { pi.registerCommand("x", { handler: () => "y" }); }
"#)?;
    std::fs::write(b, "export default function () { throw new Error('boom'); }\n")?;
    Ok(())
}

#[tokio::test]
async fn continued_and_formatted() -> Result<()> {
    std::fs::write(c, "export default function (pi) {\n\
            pi.on(\"turn_start\", () => \"\u{2713}\");\n\
        }\n")?;
    std::fs::write(d, format!("export default function (pi) {{ pi.on(\"{removed}\", () => null); }}\n"))?;
    Ok(())
}
`;

function fakeRpi(root: string): string {
	const files: Record<string, string> = {
		"crates/pi-coding/tests/extensions.rs": RUST,
		[`${RPI_FIXTURES_DIR}/a.mjs`]: "export default function (pi) {}\n",
		[`${RPI_FIXTURES_DIR}/notes.txt`]: "not a fixture\n",
		[RPI_EXAMPLE]: "export default function () {}\n",
	};
	for (const [path, text] of Object.entries(files)) {
		mkdirSync(join(root, path, ".."), { recursive: true });
		writeFileSync(join(root, path), text);
	}
	return root;
}

describe("reading rpi for the rpi-fixtures harness", () => {
	test("inline programs: raw and quoted literals, escapes, line continuations, in order per test function", () => {
		const programs = inlinePrograms(RUST);
		assert.deepEqual(programs.get("helper"), []);
		assert.deepEqual(programs.get("raw_and_quoted"), [
			'\nexport default function (pi) { pi.registerCommand("x", { handler: () => "y" }); }\n',
			"export default function () { throw new Error('boom'); }\n",
		]);
		const [continued, formatted] = programs.get("continued_and_formatted")!;
		assert.equal(continued, 'export default function (pi) {\npi.on("turn_start", () => "\u2713");\n}\n');
		assert.equal(formatted, 'export default function (pi) {{ pi.on("{removed}", () => null); }}\n');
	});

	test("a checkout and a bare mirror give the same files; format! placeholders are filled", () => {
		using dir = tempDir();
		const checkout = fakeRpi(join(dir.path, "checkout"));
		const git = (...args: string[]) => execFileSync("git", args, { cwd: checkout, stdio: "pipe" });
		git("init", "-q");
		git("add", ".");
		git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "fake rpi");
		const bare = join(dir.path, "mirror.git");
		execFileSync("git", ["clone", "-q", "--bare", checkout, bare]);
		for (const path of [checkout, bare]) {
			const source = rpiSource(path);
			assert.equal(source.fixture("a.mjs"), "export default function (pi) {}\n");
			assert.equal(source.fixture("quickjs_extension.mjs"), "export default function () {}\n");
			assert.equal(
				source.inline("continued_and_formatted", 1, { removed: "overlay_open" }),
				'export default function (pi) { pi.on("overlay_open", () => null); }\n',
			);
			assert.throws(() => source.inline("continued_and_formatted", 1, {}), /no value for \{removed\}/);
			assert.throws(() => source.inline("raw_and_quoted", 2), /no inline program #2 in fn raw_and_quoted/);
			assert.deepEqual(rpiFixtureNames(path), ["a.mjs", "quickjs_extension.mjs"]);
		}
		assert.throws(() => rpiSource(bare).fixture("missing.mjs"), /HEAD has no .*missing\.mjs/);
	});

	test("a path that is not rpi is refused, saying what was expected", () => {
		using dir = tempDir();
		assert.throws(() => rpiSource(dir.path), /neither an rpi checkout .* nor a bare git mirror/);
	});
});
