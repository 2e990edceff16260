/**
 * The command that runs pier where this daemon was started, for the hints the daemon prints and the page shows
 * (`pier pair`, `pier auth login …`): in a checkout run with `npm start` there is no `pier` on PATH, and
 * `npm start -- pair` is what works.
 */
import { existsSync, realpathSync } from "node:fs";
import { delimiter, join, relative } from "node:path";

function sameFile(a: string, b: string): boolean {
	try {
		return realpathSync(a) === realpathSync(b);
	} catch {
		return false;
	}
}

/** `pier` if that name on PATH is this pier, `npm start --` under npm start, else `node <path to this bin>`. */
export function pierCommand(env: NodeJS.ProcessEnv = process.env, script = process.argv[1] ?? ""): string {
	const onPath = (env.PATH ?? "").split(delimiter).some((dir) => {
		const candidate = join(dir, "pier");
		return dir && existsSync(candidate) && sameFile(candidate, script);
	});
	if (onPath) return "pier";
	if (env.npm_lifecycle_event === "start" && env.npm_package_name === "pier") return "npm start --";
	if (!script) return "pier";
	const path = relative(process.cwd(), script);
	return `node ${path.startsWith("..") || path === "" ? script : path}`;
}
