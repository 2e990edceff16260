/**
 * Which extension mounted an app surface (or appended a card), and which commands its buttons may run.
 *
 * An app surface's HTML is untrusted: it can read its own per-mount token and post whatever it likes, so the
 * token only proves which frame spoke. The authority is here, on the daemon: an app runs only commands of the
 * extension whose `pichamber.app` entry mounted it, never the chamber's own. pi records no author for a custom
 * entry, so the daemon attributes each app entry as it is appended and writes the owner into the entry
 * (`pierOwner`, an opaque key), where it survives a daemon restart.
 */
import { createHash } from "node:crypto";

/** The field of a `pichamber.app` entry's data that names its owner; anything an extension put there is replaced. */
export const OWNER_FIELD = "pierOwner";

/** An opaque, stable key: server paths never go into the entry. */
export function ownerKey(kind: "pi" | "protocol", id: string): string {
	return `${kind}_${createHash("sha256").update(`${kind}\0${id}`).digest("hex").slice(0, 20)}`;
}

/** The owner key written into an app entry's data, if any. */
export function ownerOf(data: unknown): string | undefined {
	if (!data || typeof data !== "object" || Array.isArray(data)) return undefined;
	try {
		const value = Object.getOwnPropertyDescriptor(data, OWNER_FIELD)?.value;
		return typeof value === "string" ? value : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The data to persist: the extension's data with the owner set (or removed when it is unknown, so an extension
 * can never name an owner itself). Non-object data is left alone; it is not a valid app and mounts nothing.
 */
export function withOwner(data: unknown, owner: string | undefined): unknown {
	if (!data || typeof data !== "object" || Array.isArray(data)) return data;
	try {
		const copy: Record<string, unknown> = { ...(data as Record<string, unknown>) };
		delete copy[OWNER_FIELD];
		if (owner) copy[OWNER_FIELD] = owner;
		return copy;
	} catch {
		// A hostile getter: the entry keeps its shape and its app gets no owner, hence no commands.
		return data;
	}
}

/**
 * The in-process pi extension whose code is on the stack (pi's `appendEntry` goes through one shared runtime,
 * so the stack is the only witness). In-process extensions are trusted code; this attributes, it does not
 * defend. A frame is matched on the extension's file path; the longest path wins for nested files.
 */
export function callerExtension(stack: string, extensionPaths: readonly string[]): string | undefined {
	const files = extensionPaths.filter((p) => !p.startsWith("<"));
	let best: string | undefined;
	for (const line of stack.split("\n").slice(1)) {
		for (const path of files) {
			if (line.includes(path) && (!best || path.length > best.length)) best = path;
		}
		if (best) return best;
	}
	return undefined;
}

/** What an app-originated run is checked against: the session's commands as pi resolves them. */
export interface CommandSource {
	/** The chamber's own commands (`/new`, `/name`, …): never runnable from an app. */
	chamberCommands: ReadonlySet<string>;
	/** pi's command for an invocation name, with the file (or `<inline:N>`) of the extension that registered it. */
	command(invocationName: string): { name: string; sourcePath: string } | undefined;
	/** The protocol extension (process, QuickJS, native) that registered a bridged command, by command name. */
	protocolOwner(name: string): string | undefined;
}

/** The surfaces whose buttons run commands on an extension's behalf, as their errors name them. */
export type CommandSurface = "app surface" | "card";

/** Why an app owned by `owner` may not run `/name`, or undefined when it may. */
export function appCommandProblem(owner: string | undefined, name: string, source: CommandSource): string | undefined {
	return surfaceCommandProblem("app surface", owner, name, source);
}

/**
 * Why a button on `surface`, owned by `owner`, may not run `/name`, or undefined when it may: only commands of
 * the extension that put the surface there, never the chamber's own.
 */
export function surfaceCommandProblem(
	surface: CommandSurface,
	owner: string | undefined,
	name: string,
	source: CommandSource,
): string | undefined {
	const placed = surface === "card" ? "appended this card" : "mounted this app";
	const article = surface === "card" ? "a" : "an";
	if (source.chamberCommands.has(name)) return `${article} ${surface} cannot run the chamber's own /${name}`;
	if (!owner) return `this ${surface}'s extension is not known, so it may run no command (/${name} refused)`;
	const command = source.command(name);
	if (!command) return `this session has no command /${name}`;
	const protocol = source.protocolOwner(command.name);
	const commandOwner =
		protocol !== undefined && command.sourcePath.startsWith("<inline:")
			? ownerKey("protocol", protocol)
			: ownerKey("pi", command.sourcePath);
	if (commandOwner !== owner) return `/${name} belongs to another extension than the one that ${placed}`;
	return undefined;
}
