#!/usr/bin/env node
// `pier --version` answers before anything else loads: it is the command scripts run most, and start-up is
// measured against a bare `node -e 0` (bench startup.version).
import { readFileSync } from "node:fs";

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
	const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
	process.stdout.write(`${pkg.version}\n`);
} else {
	const { main } = await import("../dist/src/cli/main.js");
	main(argv).then(
		(code) => {
			process.exitCode = code;
		},
		(error) => {
			process.stderr.write(`pier: ${error?.stack ?? error}\n`);
			process.exitCode = 1;
		},
	);
}
