/**
 * pier as a library: make a real pi agent session with pier's defaults (pi's
 * configuration, the offline demo model, pier's extension loading), plus tools
 * and extension factories of the embedder's own.
 */
import type { AgentSession, ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import { commandContextActions } from "./agent/command-actions.js";
import { createPierRuntime, type PierRuntime, type PierSessionOptions } from "./agent/session-factory.js";

export { DEMO_MODEL_REF, decideDemoReply } from "./agent/demo-model.js";
export { agentDir, sessionDirFor } from "./agent/paths.js";
export {
	createPierRuntime,
	modelRefOf,
	type PierRuntime,
	type PierSessionOptions,
	PierUsageError,
	type SessionTarget,
} from "./agent/session-factory.js";

export interface PierSession extends PierRuntime {
	/** The live pi session (changes if the runtime switches sessions: read it, do not keep it). */
	readonly session: AgentSession;
	dispose(): Promise<void>;
}

export interface EmbedOptions extends PierSessionOptions {
	/** A UI for extension dialogs and notifications; without it they report "no UI". */
	uiContext?: ExtensionUIContext;
	/** Extension runtime errors (a throwing hook or command). Defaults to stderr. */
	onExtensionError?: (error: { extensionPath: string; event: string; error: string }) => void;
}

/**
 * Create a session and bind its extensions (so `session_start` fires), ready for `prompt()`.
 * Sessions are written to pi's session directory unless `session: { kind: "memory" }`.
 */
export async function createPierSession(options: EmbedOptions = {}): Promise<PierSession> {
	const pier = await createPierRuntime({ mode: options.uiContext ? "tui" : "print", ...options });
	const { runtime } = pier;
	const onError =
		options.onExtensionError ??
		((e: { extensionPath: string; error: string }) =>
			process.stderr.write(`pier: extension ${e.extensionPath}: ${e.error}\n`));
	const bind = async () => {
		await runtime.session.bindExtensions({
			...(options.uiContext ? { uiContext: options.uiContext } : {}),
			// A command's ctx.newSession() & co. replace this runtime's session, as in pi's own modes.
			commandContextActions: commandContextActions(runtime),
			onError,
		});
	};
	runtime.setRebindSession(bind);
	await bind();
	return {
		...pier,
		get session() {
			return runtime.session;
		},
		dispose: () => pier.dispose(),
	};
}
