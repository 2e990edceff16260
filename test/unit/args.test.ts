import assert from "node:assert/strict";
import { test } from "node:test";
import { ArgsError, parseArgs } from "../../src/cli/args.js";

test("run collects options and joins the prompt words", () => {
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
	assert.equal(args.prompt, "hello there");
});

test("no command is the terminal; --mode rpc is RPC; --mode json is run output", () => {
	assert.equal(parseArgs([]).command, "interactive");
	assert.equal(parseArgs(["--mode", "rpc"]).command, "rpc");
	assert.equal(parseArgs(["run", "--mode", "json", "x"]).output, "json");
	assert.equal(parseArgs(["--no-approve"]).approve, false);
});

test("unclaimed long flags go to extensions, with a value when one follows", () => {
	const args = parseArgs(["run", "--plan", "--depth", "3", "--name=x", "go"]);
	assert.deepEqual(
		[...args.extensionFlags],
		[
			["plan", true],
			["depth", "3"],
			["name", "x"],
		],
	);
	assert.equal(args.prompt, "go");
});

test("misuse is an ArgsError that says what is wrong", () => {
	assert.throws(() => parseArgs(["run"]), ArgsError);
	assert.throws(() => parseArgs(["run", "--model"]), /--model needs a value/);
	assert.throws(() => parseArgs(["-x"]), /unknown option -x/);
	assert.throws(() => parseArgs(["--mode", "yaml"]), /--mode must be/);
	assert.throws(() => parseArgs(["--continue", "--session", "f"]), /cannot be combined/);
	assert.throws(() => parseArgs(["--no-session", "--continue"]), /cannot be combined/);
	assert.throws(() => parseArgs(["sessions", "extra"]), /takes no words/);
});
