/**
 * `!cmd` and `!!cmd` as pi's interactive mode runs them (`handleBashCommand`): the `user_bash` hook first (an
 * extension may supply the result or its own operations), then pi's `executeBash`, which records a
 * `bashExecution` message (`!!`: excluded from the model's context) — never a prompt, so the model is not called.
 * The output streams as `bash.update` events; the row arrives when pi records it (after the run if the agent
 * was streaming, as in pi).
 */
import type { AgentSession } from "@earendil-works/pi-coding-agent";
import type { EventName, EventPayloads } from "./wire.js";

/** Output events carry the output so far, at most this often (a chatty command must not flood the stream). */
const UPDATE_MS = 50;
const OUTPUT_CHARS = 50_000;

type Publish = <E extends EventName>(event: E, payload: EventPayloads[E]) => void;

/** `!cmd` → ["cmd", false], `!!cmd` → ["cmd", true]; undefined for anything else (a bare `!` is a prompt). */
export function userBashOf(text: string): { command: string; excludeFromContext: boolean } | undefined {
	if (!text.startsWith("!")) return undefined;
	const excludeFromContext = text.startsWith("!!");
	const command = (excludeFromContext ? text.slice(2) : text.slice(1)).trim();
	return command ? { command, excludeFromContext } : undefined;
}

export async function runUserBash(
	session: AgentSession,
	bashId: string,
	{ command, excludeFromContext }: { command: string; excludeFromContext: boolean },
	publish: Publish,
): Promise<void> {
	publish("bash.start", { bashId, command, excludeFromContext });
	const hook = await session.extensionRunner.emitUserBash({
		type: "user_bash",
		command,
		excludeFromContext,
		cwd: session.sessionManager.getCwd(),
	});
	if (hook?.result) {
		session.recordBashResult(command, hook.result, { excludeFromContext });
		publish("bash.end", { bashId, cancelled: hook.result.cancelled, ...exit(hook.result.exitCode) });
		return;
	}
	let output = "";
	let timer: NodeJS.Timeout | undefined;
	const flush = () => {
		timer = undefined;
		publish("bash.update", { bashId, text: output.slice(-OUTPUT_CHARS) });
	};
	try {
		const result = await session.executeBash(
			command,
			(chunk) => {
				output += chunk;
				if (output.length > OUTPUT_CHARS * 2) output = output.slice(-OUTPUT_CHARS);
				timer ??= setTimeout(flush, UPDATE_MS);
			},
			{ excludeFromContext, ...(hook?.operations ? { operations: hook.operations } : {}) },
		);
		publish("bash.end", { bashId, cancelled: result.cancelled, ...exit(result.exitCode) });
	} catch (error) {
		publish("bash.end", { bashId, cancelled: false });
		throw error;
	} finally {
		clearTimeout(timer);
	}
}

const exit = (code: number | undefined) => (code === undefined ? {} : { exitCode: code });
