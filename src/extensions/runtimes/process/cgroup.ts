/**
 * A cgroup v2 per process extension, where the machine lets pier make one.
 *
 * A process group is not a container: a descendant that calls setsid() (a double fork, a daemonizing
 * tool) leaves it, and SIGKILL to the group no longer reaches it. A cgroup holds every descendant
 * whatever it does with sessions and groups, and `cgroup.kill` ends them all at once. pier creates one
 * child cgroup of its own cgroup per extension process, moves the child into it before the extension's
 * code runs (see `wrapSpawn`), kills it on terminate and removes it afterwards.
 *
 * Where cgroups cannot be used (not Linux, no cgroup2 mount, the cgroup not writable or not delegated,
 * controllers enabled in pier's own cgroup), pier falls back to the process group alone, says so once on
 * stderr (on Linux, where a cgroup was to be expected), and never fails a launch over it. `PIER_EXTENSION_CGROUPS=off` chooses the fallback.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** How long `remove()` waits for the killed members to be reaped before it gives up on the directory. */
const REMOVE_WAIT_MS = 1_000;

let base: string | null | undefined; // undefined: not probed yet; null: unusable
let unusableReason: string | undefined;
let warned = false;
let sequence = 0;
const live = new Set<ExtensionCgroup>();

/** Where pier's extension cgroups live, or why there are none. */
export function cgroupStatus(): { usable: true; base: string } | { usable: false; reason: string } {
	const found = probe();
	return found ? { usable: true, base: found } : { usable: false, reason: unusableReason ?? "unknown" };
}

function probe(): string | null {
	if (base !== undefined) return base;
	base = null;
	if (process.env.PIER_EXTENSION_CGROUPS === "off") {
		unusableReason = "PIER_EXTENSION_CGROUPS=off";
		return null;
	}
	if (process.platform !== "linux") {
		unusableReason = `cgroups are Linux only (this is ${process.platform})`;
		return null;
	}
	try {
		const own = /^0::(.*)$/m.exec(readFileSync("/proc/self/cgroup", "utf8"))?.[1];
		if (own === undefined) throw new Error("this process is in no cgroup v2 hierarchy");
		const mount = readFileSync("/proc/self/mountinfo", "utf8")
			.split("\n")
			.map((line) => line.split(" "))
			.find((fields) => fields[fields.indexOf("-") + 1] === "cgroup2")?.[4];
		if (!mount) throw new Error("no cgroup2 file system is mounted");
		const dir = join(mount, own);
		// The "no internal processes" rule: with controllers enabled below pier's cgroup, pier (which stays
		// in it) could not also have child cgroups holding processes.
		const subtree = readFileSync(join(dir, "cgroup.subtree_control"), "utf8").trim();
		if (subtree && own !== "/") throw new Error(`controllers are enabled below ${dir} (${subtree})`);
		sweepStale(dir);
		base = dir;
	} catch (error) {
		unusableReason = (error as Error).message;
	}
	return base;
}

/** Cgroups a pier that died without cleaning up left behind: killed and removed. */
function sweepStale(dir: string): void {
	for (const name of readdirSync(dir)) {
		const pid = Number(/^pier-(\d+)-\d+$/.exec(name)?.[1]);
		if (!pid || pid === process.pid || isAlive(pid)) continue;
		const stale = join(dir, name);
		killMembers(stale);
		try {
			rmdirSync(stale);
		} catch {
			// still being reaped: the next sweep takes it
		}
	}
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}

function killMembers(dir: string): void {
	try {
		writeFileSync(join(dir, "cgroup.kill"), "1");
		return;
	} catch {
		// cgroup.kill is Linux 5.14+; before it, signal every member (a fork between the read and the kill
		// can escape this, which cgroup.kill does not allow)
	}
	for (let round = 0; round < 3; round++) {
		let pids: number[];
		try {
			pids = readFileSync(join(dir, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number);
		} catch {
			return;
		}
		if (pids.length === 0) return;
		for (const pid of pids) {
			try {
				process.kill(pid, "SIGKILL");
			} catch {
				// already gone
			}
		}
	}
}

function populated(dir: string): boolean {
	try {
		return /^populated 1$/m.test(readFileSync(join(dir, "cgroup.events"), "utf8"));
	} catch {
		return false;
	}
}

export class ExtensionCgroup {
	private removed = false;

	private constructor(
		readonly dir: string,
		readonly extensionId: string,
	) {}

	/** A fresh cgroup for one launch of `extensionId`, or undefined (fallback: the process group only). */
	static create(extensionId: string): ExtensionCgroup | undefined {
		const root = probe();
		if (root === null) {
			warnOnce(unusableReason ?? "unknown");
			return undefined;
		}
		const dir = join(root, `pier-${process.pid}-${++sequence}`);
		try {
			mkdirSync(dir);
			if (!existsSync(join(dir, "cgroup.procs"))) throw new Error(`${dir} is not a cgroup`);
		} catch (error) {
			warnOnce(`cannot create ${dir}: ${(error as Error).message}`);
			return undefined;
		}
		const group = new ExtensionCgroup(dir, extensionId);
		live.add(group);
		return group;
	}

	get procsFile(): string {
		return join(this.dir, "cgroup.procs");
	}

	/** The pids inside (for diagnostics and tests). */
	members(): number[] {
		try {
			return readFileSync(this.procsFile, "utf8").split("\n").filter(Boolean).map(Number);
		} catch {
			return [];
		}
	}

	/**
	 * Whether `pid` made it in (called once it has spoken: the join happens before exec). A cgroup pier may
	 * create but not move processes into (cgroup.procs of a common ancestor not writable) is said once and
	 * not tried again; the process group still holds the extension.
	 */
	verify(pid: number): boolean {
		if (this.members().includes(pid)) return true;
		base = null;
		unusableReason = `cannot move processes into ${this.dir}`;
		warnOnce(unusableReason);
		void this.remove();
		return false;
	}

	/** SIGKILLs every process in the cgroup, whichever session or group it moved to. */
	kill(): void {
		if (!this.removed) killMembers(this.dir);
	}

	/** Kills what is left and removes the directory once the kernel has reaped its members. */
	async remove(): Promise<void> {
		if (this.removed) return;
		this.kill();
		const deadline = Date.now() + REMOVE_WAIT_MS;
		while (populated(this.dir) && Date.now() < deadline) await new Promise((done) => setTimeout(done, 10));
		try {
			rmdirSync(this.dir);
		} catch {
			// a member stuck in the kernel (D state): the directory stays until a later pier sweeps it
		}
		this.removed = true;
		live.delete(this);
	}

	/** At process exit: kill everything still held, and remove what is already empty. */
	static killAllSync(): void {
		for (const group of live) {
			group.kill();
			try {
				rmdirSync(group.dir);
			} catch {
				// the next pier's sweep removes it
			}
		}
	}
}

function warnOnce(reason: string): void {
	// Elsewhere the process group is all there is, always: nothing to point out.
	if (warned || process.platform !== "linux") return;
	warned = true;
	process.stderr.write(
		`pier: process extensions run without a cgroup (${reason}); a descendant that leaves its process group ` +
			"(setsid, a double fork) survives the extension's shutdown\n",
	);
}

/**
 * The command that starts the extension inside its cgroup: a shell writes its own pid into the cgroup and
 * then execs the extension (same pid, same process group, same pipes), so not even the extension's first
 * fork happens outside. Without /bin/sh, the caller moves the child right after spawning instead.
 */
export function wrapSpawn(
	group: ExtensionCgroup,
	executable: string,
	args: readonly string[],
): { executable: string; arguments: string[] } | undefined {
	if (!existsSync("/bin/sh")) return undefined;
	// $1 is the cgroup.procs path; after the shift, "$@" is the extension's command line, untouched by the
	// shell. A failed join still starts the extension (the process group still holds it).
	return {
		executable: "/bin/sh",
		arguments: ["-c", 'echo $$ 2>/dev/null > "$1"; shift; exec "$@"', "pier", group.procsFile, executable, ...args],
	};
}

/** Moves a running process into the cgroup (the fallback when there is no shell to wrap the launch). */
export function adopt(group: ExtensionCgroup, pid: number): boolean {
	try {
		writeFileSync(group.procsFile, String(pid));
		return true;
	} catch {
		return false;
	}
}
