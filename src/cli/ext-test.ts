/** `pier ext test`: what an author checks before shipping a protocol extension. */
import { ExtensionError } from "../extensions/host/errors.js";
import { startAlone } from "./ext.js";

interface Check {
	name: string;
	ok: boolean;
	detail: string;
}

/** An argument object for a tool: the schema's first example, its default, or `{}`. */
function sampleArguments(schema: Record<string, unknown>): unknown {
	const examples = schema.examples;
	if (Array.isArray(examples) && examples.length > 0) return examples[0];
	if (schema.default !== undefined) return schema.default;
	return {};
}

export async function conformance(path: string): Promise<number> {
	const checks: Check[] = [];
	const check = (name: string, ok: boolean, detail: string) => checks.push({ name, ok, detail });
	const t0 = Date.now();
	let started: Awaited<ReturnType<typeof startAlone>>;
	try {
		started = await startAlone(path);
	} catch (error) {
		check("handshake, load and initialize", false, (error as Error).message);
		return print(checks);
	}
	const { host, manifest } = started;
	const instance = host.instances[0]!;
	check("handshake, load and initialize", true, `${Date.now() - t0} ms`);
	const r = instance.registrations!;
	check(
		"registrations",
		true,
		`${r.tools.length} tools, ${r.commands.length} commands, ${r.hooks.length} hooks, ${r.flags.length} flags, ${r.shortcuts.length} shortcuts`,
	);
	for (const tool of r.tools) {
		const args = sampleArguments(tool.parameters);
		const start = Date.now();
		try {
			await host.invokeTool(tool.name, "conformance", args, { timeoutMs: 10_000 });
			check(`tool ${tool.name} answers ${JSON.stringify(args)}`, true, `${Date.now() - start} ms`);
		} catch (error) {
			const code = (error as ExtensionError).code;
			// A clean failure response is conformant; a crash or a timeout is not.
			const clean = error instanceof ExtensionError && !["transport_closed", "timeout", "invalidated"].includes(code);
			check(`tool ${tool.name} answers ${JSON.stringify(args)}`, clean, `${code}: ${(error as Error).message}`);
		}
	}
	if (r.tools[0] && instance.isLive) {
		const tool = r.tools[0];
		const controller = new AbortController();
		const start = Date.now();
		const call = host.invokeTool(tool.name, "conformance-cancel", sampleArguments(tool.parameters), {
			signal: controller.signal,
		});
		controller.abort();
		await call.catch(() => {});
		// Give the extension a moment to act on the cancel, then it must still be usable.
		await new Promise((resolve) => setTimeout(resolve, 100));
		check("cancel is honoured and the extension stays usable", instance.isLive, `${Date.now() - start} ms`);
	}
	const shutdownStart = Date.now();
	const exitedByItself = await Promise.race([
		instance.channel.exited.then(() => true),
		(async () => {
			await host.shutdown("conformance check finished");
			return false;
		})(),
	]);
	const cleanExit = exitedByItself || Date.now() - shutdownStart < host.timeouts.shutdownMs;
	check(
		"clean shutdown",
		cleanExit,
		cleanExit ? `${Date.now() - shutdownStart} ms` : "had to be killed after the shutdown timeout",
	);
	process.stdout.write(`pier ext test ${manifest.id} (${manifest.manifestPath})\n`);
	return print(checks);
}

function print(checks: Check[]): number {
	for (const c of checks) process.stdout.write(`  ${c.ok ? "✓" : "✗"} ${c.name}${c.detail ? ` — ${c.detail}` : ""}\n`);
	const failed = checks.filter((c) => !c.ok).length;
	process.stdout.write(
		failed === 0 ? `all ${checks.length} checks passed\n` : `${failed} of ${checks.length} checks failed\n`,
	);
	return failed === 0 ? 0 : 1;
}
