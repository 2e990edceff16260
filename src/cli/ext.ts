/**
 * `pier ext`: an extension author's tools. `validate` checks a manifest package,
 * `invoke` loads just one extension and runs one tool, command or hook, and
 * `test` runs a conformance check with a readable report.
 */
import { resolve } from "node:path";
import { isManifestPath } from "../extensions/bridge/discovery.js";
import { ExtensionHost } from "../extensions/host/host.js";
import type { RuntimeHost } from "../extensions/host/instance.js";
import { resolveTimeouts } from "../extensions/host/timeouts.js";
import { type ExtensionManifest, loadManifest } from "../extensions/manifest.js";
import type { UiRequest, UiResponse } from "../extensions/protocol/frames.js";
import { launchSpec } from "../extensions/runtimes/table.js";
import { ArgsError } from "./args.js";

const USAGE = `usage:
  pier ext validate <dir>
  pier ext invoke <dir> (--tool NAME [--args JSON] | --command NAME [--args TEXT] | --event NAME [--data JSON]) [--timeout-ms N]
  pier ext test <dir>`;

/** No session: non-interactive UI goes to stderr, dialogs and session actions are unavailable. */
const headless: RuntimeHost = {
	hasUi: false,
	async ui(request: UiRequest): Promise<UiResponse> {
		const line = "message" in request ? request.message : "text" in request ? request.text : JSON.stringify(request);
		process.stderr.write(`[ui ${request.type}] ${line ?? ""}\n`);
		return { type: "acknowledged" };
	},
	async action(action) {
		throw new Error(`session action ${action.kind} needs a session (use pier run)`);
	},
};

function takeOption(words: string[], name: string): string | undefined {
	const at = words.indexOf(name);
	if (at < 0) return undefined;
	const value = words[at + 1];
	if (value === undefined) throw new ArgsError(`${name} needs a value`);
	words.splice(at, 2);
	return value;
}

function parseJson(text: string, option: string): unknown {
	try {
		return JSON.parse(text);
	} catch (error) {
		throw new ArgsError(`${option} must be JSON: ${(error as Error).message}`);
	}
}

export async function extCommand(argv: readonly string[]): Promise<number> {
	const [sub, dir, ...rest] = argv;
	// Asked for, the usage is an answer (stdout, exit 0), not a mistake.
	if (sub === "--help" || sub === "-h" || sub === "help" || (sub && (dir === "--help" || dir === "-h"))) {
		process.stdout.write(`${USAGE}\n`);
		return 0;
	}
	if (!sub || !dir || !["validate", "invoke", "test"].includes(sub)) throw new ArgsError(USAGE);
	const path = resolve(dir);
	if (sub === "validate") return validate(path);
	if (!isManifestPath(path)) return invokeInProcess(path, rest);
	if (sub === "invoke") return invoke(path, rest);
	return (await import("./ext-test.js")).conformance(path);
}

function validate(path: string): number {
	try {
		const manifest = loadManifest(path);
		process.stdout.write(`${JSON.stringify(describeManifest(manifest), null, 2)}\n`);
		process.stdout.write(`ok: ${manifest.manifestPath} is valid\n`);
		return 0;
	} catch (error) {
		process.stderr.write(`invalid: ${(error as Error).message}\n`);
		return 1;
	}
}

function describeManifest(m: ExtensionManifest) {
	return {
		id: m.id,
		version: m.version,
		runtime: m.runtime,
		capabilities: m.capabilities,
		uiCapabilities: m.uiCapabilities,
	};
}

export async function startAlone(path: string, timeoutMs?: number) {
	const manifest = loadManifest(path);
	const timeouts = timeoutMs ? { invocationMs: timeoutMs, hookMs: timeoutMs } : {};
	const diagnostics: string[] = [];
	const host = new ExtensionHost({ mode: "print", timeouts, onDiagnostic: (d) => diagnostics.push(d.message) });
	host.setRuntimeHost(headless);
	const options = { cwd: process.cwd(), projectTrusted: true };
	const spec = launchSpec(manifest, { ...options, deadlineMs: host.timeouts.invocationMs });
	const report = await host.load([spec]);
	if (report.failures.length > 0) throw new Error(report.failures.map((f) => f.message).join("\n"));
	return { host, manifest, diagnostics };
}

async function invoke(path: string, words: string[]): Promise<number> {
	const rest = [...words];
	const tool = takeOption(rest, "--tool");
	const command = takeOption(rest, "--command");
	const event = takeOption(rest, "--event");
	const args = takeOption(rest, "--args");
	const data = takeOption(rest, "--data");
	const timeout = takeOption(rest, "--timeout-ms");
	if (rest.length > 0) throw new ArgsError(`unexpected ${rest.join(" ")}\n${USAGE}`);
	if ([tool, command, event].filter((x) => x !== undefined).length !== 1) {
		throw new ArgsError(`give exactly one of --tool, --command, --event\n${USAGE}`);
	}
	const timeoutMs = timeout === undefined ? undefined : Number(timeout);
	if (timeoutMs !== undefined) resolveTimeouts({ invocationMs: timeoutMs });
	let started: Awaited<ReturnType<typeof startAlone>> | undefined;
	try {
		started = await startAlone(path, timeoutMs);
		const { host } = started;
		let value: unknown;
		if (tool !== undefined)
			value = await host.invokeTool(tool, "pier-ext-invoke", args ? parseJson(args, "--args") : {});
		else if (command !== undefined) value = await host.invokeCommand(command, args ?? "");
		else {
			const [outcome] = await host.emit(event!, data ? parseJson(data, "--data") : {});
			if (!outcome) throw new Error(`the extension does not hook "${event}"`);
			if (!outcome.result.ok) throw outcome.result.error;
			value = outcome.result.value;
		}
		process.stdout.write(`${JSON.stringify(value ?? null, null, 2)}\n`);
		return 0;
	} catch (error) {
		if (error instanceof ArgsError) throw error;
		const code = (error as { code?: string }).code;
		process.stderr.write(`error${code ? ` (${code})` : ""}: ${(error as Error).message}\n`);
		return 1;
	} finally {
		await started?.host.shutdown("pier ext invoke finished");
	}
}

/** A TS/JS pi extension: load it alone into an in-memory pier session. */
async function invokeInProcess(path: string, words: string[]): Promise<number> {
	const rest = [...words];
	const tool = takeOption(rest, "--tool");
	const command = takeOption(rest, "--command");
	const args = takeOption(rest, "--args");
	if (!tool && !command) {
		process.stderr.write("error: for an in-process pi extension, pier ext supports invoke --tool or --command\n");
		return 1;
	}
	const { createPierRuntime } = await import("../agent/session-factory.js");
	const pier = await createPierRuntime({ extensionPaths: [path], noExtensions: true, session: { kind: "memory" } });
	try {
		const failed = pier.diagnostics.filter((d) => d.type === "error");
		if (failed.length > 0) throw new Error(failed.map((d) => d.message).join("\n"));
		await pier.runtime.session.bindExtensions({});
		if (tool) {
			const found = pier.runtime.session.agent.state.tools.find((t) => t.name === tool);
			if (!found) throw new Error(`the extension has no tool "${tool}"`);
			const result = await found.execute("pier-ext-invoke", args ? parseJson(args, "--args") : {});
			process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
		} else {
			await pier.runtime.session.prompt(`/${command}${args ? ` ${args}` : ""}`);
			process.stdout.write("null\n");
		}
		return 0;
	} catch (error) {
		process.stderr.write(`error: ${(error as Error).message}\n`);
		return 1;
	} finally {
		await pier.dispose();
	}
}
