/** The daemon's rule for app surfaces (finding 8): who owns an app, and which commands that app may run. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
	appCommandProblem,
	type CommandSource,
	callerExtension,
	OWNER_FIELD,
	ownerKey,
	ownerOf,
	withOwner,
} from "../../src/chamber/ui/app-owner.js";

const source: CommandSource = {
	chamberCommands: new Set(["new", "compact", "name", "model", "thinking"]),
	command: (name) =>
		({
			mine: { name: "mine", sourcePath: "/ext/a.ts" },
			theirs: { name: "theirs", sourcePath: "/ext/b.ts" },
			"q-own": { name: "q-own", sourcePath: "<inline:1>" },
			"mine:2": { name: "mine", sourcePath: "/ext/b.ts" },
		})[name],
	protocolOwner: (name) => (name === "q-own" ? "qjs-ext" : undefined),
};

describe("app surface owners", () => {
	test("an app runs its own extension's commands, nothing else, never the chamber's", () => {
		const a = ownerKey("pi", "/ext/a.ts");
		assert.equal(appCommandProblem(a, "mine", source), undefined);
		assert.match(appCommandProblem(a, "theirs", source) ?? "", /another extension/);
		assert.match(appCommandProblem(a, "mine:2", source) ?? "", /another extension/, "a same-named command of B");
		assert.match(appCommandProblem(a, "q-own", source) ?? "", /another extension/);
		assert.match(appCommandProblem(a, "nope", source) ?? "", /no command/);
		for (const builtin of source.chamberCommands) {
			assert.match(appCommandProblem(a, builtin, source) ?? "", /chamber's own/);
		}
		assert.equal(appCommandProblem(ownerKey("protocol", "qjs-ext"), "q-own", source), undefined);
		assert.match(appCommandProblem(ownerKey("protocol", "other"), "q-own", source) ?? "", /another extension/);
		assert.match(appCommandProblem(undefined, "mine", source) ?? "", /not known/);
	});

	test("the owner written into an entry replaces whatever the extension put there", () => {
		const data = { appId: "x", html: "<p>", [OWNER_FIELD]: "forged" };
		assert.equal(ownerOf(withOwner(data, "pi_real")), "pi_real");
		assert.equal(ownerOf(withOwner(data, undefined)), undefined, "unknown means none, not the forged one");
		assert.equal(data[OWNER_FIELD], "forged", "the extension's object is not mutated");
		assert.equal(withOwner("text", "pi_real"), "text");
		const hostile = Object.defineProperty({}, "html", {
			enumerable: true,
			get() {
				throw new Error("boom");
			},
		});
		assert.equal(withOwner(hostile, "pi_real"), hostile);
	});

	test("the in-process extension on the stack is found by its file, the most specific path first", () => {
		const stack = [
			"Error",
			"    at LiveSession.mounter (/pier/dist/src/chamber/live-session.js:1:1)",
			"    at Object.appendEntry (/node_modules/pi/agent-session.js:2:2)",
			"    at handler (/home/u/.pi/agent/extensions/tools/deep/index.ts:10:5)",
		].join("\n");
		assert.equal(
			callerExtension(stack, [
				"/home/u/.pi/agent/extensions/tools",
				"/home/u/.pi/agent/extensions/tools/deep/index.ts",
			]),
			"/home/u/.pi/agent/extensions/tools/deep/index.ts",
		);
		assert.equal(callerExtension(stack, ["<inline:1>", "/elsewhere.ts"]), undefined);
	});
});
