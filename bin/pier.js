#!/usr/bin/env node
// `pier --version` answers before anything else loads: it is the command scripts run most, and start-up is
// measured against a bare `node -e 0` (bench startup.version). This file is CommonJS (bin/package.json): an
// ES module entry first starts Node's ESM loader, which costs more than the answer itself.
"use strict";

const argv = process.argv.slice(2);
if (!require("./node-version.js").ensureNode(__filename, argv)) {
	// pier runs under another Node, or cannot run here: that process, or the message, is the answer.
} else if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
	const { readFileSync } = require("node:fs");
	const pkg = JSON.parse(readFileSync(`${__dirname}/../package.json`, "utf8"));
	process.stdout.write(`${pkg.version}\n`);
} else {
	import("../dist/src/cli/main.js").then(({ main }) =>
		main(argv).then(
			(code) => {
				process.exitCode = code;
			},
			(error) => {
				process.stderr.write(`pier: ${error?.stack ?? error}\n`);
				process.exitCode = 1;
			},
		),
	);
}
