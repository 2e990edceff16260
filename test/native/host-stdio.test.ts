/**
 * `declare.ownsStdio`: the owning plugin serves pier's own stdin/stdout (the protocol is on fds 3/4), the
 * session shuts down only after its StdioLifecycle finish, and pier ends with the plugin's code. A second
 * owner fails to start, naming the first.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { runPier, tempDir } from "../helpers/pier-cli.js";
import { crateModule, FIXTURES } from "./host-helpers.js";

const stdioPlugin = (root: string) => crateModule(root, "native-stdio", join(FIXTURES, "stdio"));

describe("a native plugin that owns stdio", () => {
	test("reads pier's stdin, writes pier's stdout, and its finish code ends pier after SessionShutdown", async () => {
		using dir = tempDir();
		const pkg = await stdioPlugin(dir.path);
		const result = await runPier(["run", "-e", pkg, "hello"], { agentDir: dir.path, stdin: "first line\nsecond\n" });
		assert.equal(result.code, 7, result.stderr);
		assert.match(result.stdout, /^FIRST LINE\nSECOND\n/m);
	});

	test("RPC mode, which needs stdin/stdout itself, refuses to start beside an owner", async () => {
		using dir = tempDir();
		const result = await runPier(["--mode", "rpc", "-e", await stdioPlugin(dir.path)], { agentDir: dir.path });
		assert.equal(result.code, 1);
		assert.match(result.stderr, /extension native-stdio owns stdin\/stdout .* so RPC mode cannot use them/);
	});

	test("a second plugin declaring ownsStdio fails to start, naming the owner; the first keeps stdio", async () => {
		using dir = tempDir();
		const first = await stdioPlugin(join(dir.path, "a"));
		const second = await stdioPlugin(join(dir.path, "b"));
		const manifest = join(second, "pi-extension.json");
		writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, "utf8")), id: "native-stdio-two" }));
		const result = await runPier(["run", "-e", first, "-e", second, "hello"], { agentDir: dir.path, stdin: "x\n" });
		assert.match(
			result.stderr,
			/declares ownsStdio, but extension native-stdio(-two)? \(.*\) already owns pier's stdin\/stdout; only one plugin may own stdio/,
		);
		assert.equal(result.code, 7, result.stderr);
		assert.match(result.stdout, /^X$/m);
	});
});
