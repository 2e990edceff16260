/**
 * The file browser's routes against a real `pier serve`: a git project (its ignore rules applied by git, a
 * tracked file under an ignored pattern still shown) and a plain directory (its root `.gitignore` read), one level
 * per listing; previews of text, an image, a binary and a too-large file; uploads under the size limit, never over
 * an existing file without `overwrite`. And the attacks: `..`, absolute paths, symlinks leading out (to a file and
 * to a directory) for listing, preview and upload, a symlink as an upload's target, no auth.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { PREVIEW_MAX_BYTES, UPLOAD_MAX_BYTES } from "../../src/chamber/files/files-wire.js";
import { matchesGitignore, parseGitignore } from "../../src/chamber/files/ignore.js";
import { ApiClient, type Serve, servedChamber } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";

/** A 1×1 PNG. */
const PNG = Buffer.from(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
	"base64",
);
const SECRET = "OUTSIDE-THE-PROJECT-SECRET";

type Entry = { name: string; path: string; kind: string; size?: number; link?: true; outside?: true };
type Listing = { dir: string; entries: Entry[]; ignore: string };
type ErrorBody = { error: { code: string; message: string } };

describe("the file browser's routes", () => {
	const dir = tempDir("pier-files-");
	const project = join(dir.path, "project");
	const plain = join(dir.path, "plain");
	const outside = join(dir.path, "outside");
	let serve: Serve;
	let api: ApiClient;
	let id: string;
	let plainId: string;
	const files = (sid: string) => `/api/pi/sessions/${sid}/files`;

	before(async () => {
		mkdirSync(join(project, "src"), { recursive: true });
		mkdirSync(join(project, "dist"), { recursive: true });
		mkdirSync(outside, { recursive: true });
		writeFileSync(join(dir.path, "secret.txt"), `${SECRET}\n`);
		writeFileSync(join(outside, "inside-out.txt"), `${SECRET}\n`);
		writeFileSync(join(project, ".gitignore"), "dist/\n*.log\n");
		writeFileSync(join(project, "src", "app.ts"), "export const answer: number = 42;\n");
		writeFileSync(join(project, "README.md"), "# Project\n");
		writeFileSync(join(project, "dist", "out.js"), "built\n");
		writeFileSync(join(project, "debug.log"), "noise\n");
		writeFileSync(join(project, "keep.log"), "tracked although ignored\n");
		writeFileSync(join(project, "image.png"), PNG);
		writeFileSync(join(project, "data.bin"), Buffer.from([1, 2, 0, 3, 4]));
		writeFileSync(join(project, "big.txt"), "x".repeat(PREVIEW_MAX_BYTES + 1));
		symlinkSync(join(dir.path, "secret.txt"), join(project, "escape.txt"));
		symlinkSync(outside, join(project, "linkout"));
		symlinkSync(join(project, "src", "app.ts"), join(project, "app-link.ts"));
		execFileSync("git", ["init", "-q"], { cwd: project });
		execFileSync("git", ["add", "-f", "keep.log"], { cwd: project });

		mkdirSync(join(plain, "node_modules", "dep"), { recursive: true });
		mkdirSync(join(plain, "build"), { recursive: true });
		writeFileSync(join(plain, ".gitignore"), "# comment\n*.tmp\n!keep.tmp\nbuild/\n");
		writeFileSync(join(plain, "a.tmp"), "");
		writeFileSync(join(plain, "keep.tmp"), "");
		writeFileSync(join(plain, "main.py"), "print('hi')\n");

		({ serve, api } = await servedChamber(["--no-examples"], {
			agentDir: join(dir.path, "agent"),
			cwd: project,
			stateDir: join(dir.path, "state"),
		}));
		const made = async (cwd: string) => {
			const reply = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", { cwd });
			assert.equal(reply.status, 201, JSON.stringify(reply.body));
			return reply.body.session.id;
		};
		id = await made(project);
		plainId = await made(plain);
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	const list = (sid: string, d: string) =>
		api.call<Listing & ErrorBody>("GET", `${files(sid)}/list?dir=${encodeURIComponent(d)}`);
	const preview = (p: string) =>
		api.call<Record<string, unknown> & ErrorBody>("GET", `${files(id)}/preview?path=${encodeURIComponent(p)}`);
	const upload = (body: Record<string, unknown>) =>
		api.call<Record<string, unknown> & ErrorBody>("POST", `${files(id)}/upload`, body);
	const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");

	test("a git project lists one level, folders first, as git's ignore rules leave it", async () => {
		const root = await list(id, "");
		assert.equal(root.status, 200, JSON.stringify(root.body));
		assert.equal(root.body.ignore, "git");
		const names = root.body.entries.map((e) => e.name);
		assert.deepEqual(names, [
			"src",
			".gitignore",
			"app-link.ts",
			"big.txt",
			"data.bin",
			"escape.txt",
			"image.png",
			"keep.log",
			"linkout",
			"README.md",
		]);
		const by = (n: string) => root.body.entries.find((e) => e.name === n);
		assert.equal(by("src")?.kind, "dir");
		assert.equal(by("README.md")?.size, 10);
		assert.deepEqual(by("escape.txt"), {
			name: "escape.txt",
			path: "escape.txt",
			kind: "file",
			link: true,
			outside: true,
		});
		assert.equal(by("linkout")?.outside, true, "a link to a directory outside is marked too");
		assert.equal(by("app-link.ts")?.outside, undefined, "a link inside the project is a file like any other");
		const src = await list(id, "src");
		assert.deepEqual(
			src.body.entries.map((e) => e.path),
			["src/app.ts"],
		);
	});

	test("a plain directory reads its root .gitignore, and hides node_modules", async () => {
		const root = await list(plainId, "");
		assert.equal(root.status, 200, JSON.stringify(root.body));
		assert.equal(root.body.ignore, "gitignore");
		assert.deepEqual(
			root.body.entries.map((e) => e.name),
			[".gitignore", "keep.tmp", "main.py"],
		);
		assert.equal(matchesGitignore(parseGitignore("build/\n"), "build/out.js"), true, "inside an ignored folder");
		assert.equal(matchesGitignore(parseGitignore("/top.txt\n"), "sub/top.txt"), false, "an anchored pattern");
		assert.equal(matchesGitignore(parseGitignore("*.tmp\n!keep.tmp\n"), "x/keep.tmp"), false, "a negation");
	});

	test("previews: source as text, an image as base64, a binary and a too-large file named as such", async () => {
		const text = await preview("src/app.ts");
		assert.equal(text.status, 200, JSON.stringify(text.body));
		assert.deepEqual(text.body, {
			kind: "text",
			path: "src/app.ts",
			size: 34,
			text: "export const answer: number = 42;\n",
		});
		const image = await preview("image.png");
		assert.equal(image.body.kind, "image");
		assert.equal(image.body.mimeType, "image/png");
		assert.equal(image.body.data, PNG.toString("base64"));
		assert.deepEqual(await preview("data.bin").then((r) => r.body), { kind: "binary", path: "data.bin", size: 5 });
		const big = await preview("big.txt");
		assert.deepEqual(big.body, {
			kind: "too_large",
			path: "big.txt",
			size: PREVIEW_MAX_BYTES + 1,
			limit: PREVIEW_MAX_BYTES,
		});
		assert.equal((await preview("app-link.ts")).body.text, "export const answer: number = 42;\n");
		const missing = await preview("nope.ts");
		assert.equal(missing.status, 422);
		assert.match(missing.body.error.message, /nope\.ts: no such file/);
	});

	test("nothing outside the project is listed or previewed: .., absolute paths, symlinks out", async () => {
		for (const path of [
			"escape.txt",
			"../secret.txt",
			join(dir.path, "secret.txt"),
			"linkout/inside-out.txt",
			"src/../../secret.txt",
		]) {
			const reply = await preview(path);
			assert.equal(reply.status, 403, `${path}: ${JSON.stringify(reply.body)}`);
			assert.equal(reply.body.error.code, "outside_project", path);
			assert.doesNotMatch(JSON.stringify(reply.body), new RegExp(SECRET), path);
		}
		for (const d of ["..", "linkout", "/etc", "src/../.."]) {
			const reply = await list(id, d);
			assert.equal(reply.status, 403, `${d}: ${JSON.stringify(reply.body)}`);
			assert.equal(reply.body.error.code, "outside_project", d);
		}
		const anonymous = new ApiClient(serve.url);
		assert.equal((await anonymous.call("GET", `${files(id)}/list?dir=`)).status, 401);
		assert.equal((await anonymous.call("GET", `${files(id)}/preview?path=README.md`)).status, 401);
		assert.equal((await anonymous.call("POST", `${files(id)}/upload`, { dir: "", name: "x", data: "" })).status, 401);
	});

	test("an upload lands in the folder, up to the limit, and replaces a file only with overwrite", async () => {
		const made = await upload({ dir: "src", name: "notes.md", data: b64("first\n") });
		assert.equal(made.status, 201, JSON.stringify(made.body));
		assert.deepEqual(made.body, { path: "src/notes.md", size: 6, replaced: false });
		assert.equal(readFileSync(join(project, "src", "notes.md"), "utf8"), "first\n");

		const again = await upload({ dir: "src", name: "notes.md", data: b64("second\n") });
		assert.equal(again.status, 409, JSON.stringify(again.body));
		assert.equal(again.body.error.code, "file_exists");
		assert.match(again.body.error.message, /src\/notes\.md already exists.*overwrite/);
		assert.equal(readFileSync(join(project, "src", "notes.md"), "utf8"), "first\n", "the existing file is untouched");

		const replaced = await upload({ dir: "src", name: "notes.md", data: b64("second\n"), overwrite: true });
		assert.equal(replaced.status, 201, JSON.stringify(replaced.body));
		assert.equal(replaced.body.replaced, true);
		assert.equal(readFileSync(join(project, "src", "notes.md"), "utf8"), "second\n");

		const atLimit = await upload({ dir: "", name: "at-limit.bin", data: b64(Buffer.alloc(UPLOAD_MAX_BYTES, 7)) });
		assert.equal(atLimit.status, 201, JSON.stringify(atLimit.body));
		const past = await upload({ dir: "", name: "past-limit.bin", data: b64(Buffer.alloc(UPLOAD_MAX_BYTES + 1, 7)) });
		assert.equal(past.status, 422, JSON.stringify(past.body));
		assert.match(
			past.body.error.message,
			new RegExp(`past-limit\\.bin: ${UPLOAD_MAX_BYTES + 1} bytes, over the ${UPLOAD_MAX_BYTES}`),
		);
		assert.equal(existsSync(join(project, "past-limit.bin")), false);
		assert.deepEqual(
			readdirSync(project).filter((n) => n.includes("pier-upload")),
			[],
			"no temporary file is left behind",
		);
	});

	test("an upload never writes outside the project, nor through a symlink", async () => {
		for (const d of ["..", "linkout", dir.path, "src/../.."]) {
			const reply = await upload({ dir: d, name: "planted.txt", data: b64("planted\n") });
			assert.equal(reply.status, 403, `${d}: ${JSON.stringify(reply.body)}`);
			assert.equal(reply.body.error.code, "outside_project");
		}
		assert.equal(existsSync(join(dir.path, "planted.txt")), false);
		assert.equal(existsSync(join(outside, "planted.txt")), false);
		for (const name of ["../planted.txt", "a/b.txt", "..", "."]) {
			const reply = await upload({ dir: "", name, data: b64("planted\n") });
			assert.equal(reply.status, 422, `${name}: ${JSON.stringify(reply.body)}`);
			assert.equal(reply.body.error.code, "bad_request");
			assert.match(reply.body.error.message, /name: .* is not a plain file name/);
		}
		const through = await upload({ dir: "", name: "escape.txt", data: b64("overwritten\n"), overwrite: true });
		assert.equal(through.status, 422, JSON.stringify(through.body));
		assert.match(through.body.error.message, /escape\.txt is a directory, a symbolic link or a special file/);
		assert.equal(readFileSync(join(dir.path, "secret.txt"), "utf8"), `${SECRET}\n`, "the link's target is untouched");
	});
});
