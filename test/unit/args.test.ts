import assert from "node:assert/strict";
import { test } from "node:test";
import { parseArgs } from "../../src/cli/args.js";

test("run collects options and keeps each message argument apart, as pi does", () => {
	const args = parseArgs([
		"run",
		"--model",
		"pier/demo",
		"-e",
		"a.ts",
		"--extension=b.ts",
		"--approve",
		"hello",
		"there",
	]);
	assert.equal(args.command, "run");
	assert.equal(args.model, "pier/demo");
	assert.deepEqual(args.extensions, ["a.ts", "b.ts"]);
	assert.equal(args.approve, true);
	assert.deepEqual(args.messages, ["hello", "there"]);
});

test("no command is the terminal; --mode rpc is RPC; --mode json is run output", () => {
	assert.equal(parseArgs([]).command, "interactive");
	assert.equal(parseArgs(["--mode", "rpc"]).command, "rpc");
	assert.equal(parseArgs(["run", "--mode", "json", "x"]).output, "json");
	assert.equal(parseArgs(["--no-approve"]).approve, false);
});

test("pi 1.6's short forms -a and -na are --approve and --no-approve", () => {
	assert.equal(parseArgs(["run", "-a", "hi"]).approve, true);
	assert.equal(parseArgs(["-na"]).approve, false);
	assert.deepEqual(parseArgs(["run", "-a", "hi"]).messages, ["hi"]);
});

test("unclaimed long flags go to extensions, with a value when one follows", () => {
	const args = parseArgs(["run", "--plan", "--depth", "3", "--label=x", "--name=y", "go"]);
	assert.deepEqual(
		[...args.extensionFlags],
		[
			["plan", true],
			["depth", "3"],
			["label", "x"],
		],
	);
	assert.equal(args.name, "y", "--name is pi 1.6's own flag");
	assert.deepEqual(args.messages, ["go"]);
});

test("pi's print, tool and system-prompt flags", () => {
	const args = parseArgs([
		"--mode",
		"json",
		"-p",
		"--no-session",
		"-t",
		"read, bash",
		"--append-system-prompt",
		"a.md",
		"Task: y",
	]);
	assert.equal(args.command, "run");
	assert.equal(args.output, "json");
	assert.equal(args.noSession, true);
	assert.deepEqual(args.tools, ["read", "bash"]);
	assert.deepEqual(args.messages, ["Task: y"]);
	const more = parseArgs(["-p", "Task: x", "--append-system-prompt", "one", "--append-system-prompt", "two"]);
	assert.deepEqual(more.messages, ["Task: x"]);
	assert.deepEqual(more.appendSystemPrompt, ["one", "two"]);
	assert.equal(parseArgs(["--mode", "json", "hi"]).command, "run");
	assert.equal(parseArgs(["-nt"]).noTools, "all");
	// A flag before the prompt takes it, as in pi; the extension's type decides later.
	assert.deepEqual([...parseArgs(["run", "--plan", "do it"]).extensionFlags], [["plan", "do it"]]);
});

test("misuse is an ArgsError that says what is wrong", () => {
	assert.throws(() => parseArgs(["run", "--model"]), /--model needs a value/);
	assert.throws(() => parseArgs(["-x"]), /unknown option -x/);
	assert.throws(() => parseArgs(["--mode", "yaml"]), /--mode must be/);
	assert.throws(() => parseArgs(["--continue", "--session", "f"]), /cannot be combined/);
	assert.throws(() => parseArgs(["--no-session", "--continue"]), /cannot be combined/);
	assert.throws(() => parseArgs(["sessions", "extra"]), /takes no words/);
});
