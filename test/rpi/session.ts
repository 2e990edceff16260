/**
 * What rpi's provider tests set up, in pier: a QuickJS package (support.ts) loaded into a real pier session, so
 * its providers reach the session's pi model runtime as in `pier run`. rpi calls pi-ai's `stream_simple` with a
 * hand-made model; pier's turns go through the session's agent (its `streamFunction`), with the model the
 * session's runtime holds for the provider.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type {
	Api,
	AssistantMessage,
	AssistantMessageEvent,
	Context,
	Model,
	SimpleStreamOptions,
} from "@earendil-works/pi-ai";
import { normalizeContext } from "@earendil-works/pi-ai";
import { DEFAULT_PROVIDER_MODEL, providerApiName } from "../../src/extensions/bridge/providers.js";
import { createPierSession, type PierSession } from "../../src/index.js";
import { tempDir } from "../helpers/pier-cli.js";
import type { RpiSource } from "./source.js";
import { type PackageOptions, writePackage } from "./support.js";

export interface OpenSession {
	pier: PierSession;
	/** What the session reported as extension errors (a load failure among them). */
	errors: string[];
	/** The runtime's model for `providerId`'s `default` model, failing with the providers there are when it has none. */
	model(providerId: string): Model<Api>;
	/** pier's API name for `providerId` of this session's extension (protocol-v1 §4.4). */
	api(providerId: string): string;
	/** Replaces the package's program (for a /reload's next generation). */
	rewrite(program: string): void;
	/** Ends the session (idempotent): what rpi's `runtime.shutdown()` is in a pier session. */
	close(): Promise<void>;
	[Symbol.asyncDispose](): Promise<void>;
}

/** A memory session over `program`'s package, with `model` (a `provider/id` reference) chosen at start. */
export async function openSession(program: string, options: PackageOptions & { model: string }): Promise<OpenSession> {
	const pkg = writePackage(program, options);
	const agent = tempDir("pier-rpi-agent-");
	const errors: string[] = [];
	let pier: PierSession;
	try {
		pier = await createPierSession({
			cwd: pkg.dir,
			agentDir: agent.path,
			session: { kind: "memory" },
			extensionPaths: [pkg.dir],
			model: options.model,
			onExtensionError: (e) => errors.push(e.error),
		});
	} catch (error) {
		pkg[Symbol.dispose]();
		agent[Symbol.dispose]();
		throw error;
	}
	let closed: Promise<void> | undefined;
	const close = () => {
		closed ??= pier.dispose().finally(() => {
			pkg[Symbol.dispose]();
			agent[Symbol.dispose]();
		});
		return closed;
	};
	return {
		pier,
		errors,
		model(providerId) {
			const model = pier.session.modelRuntime.getModel(providerId, DEFAULT_PROVIDER_MODEL);
			if (model) return model;
			const known = [...pier.extensionHost.registry.providers.keys()].join(", ") || "none";
			throw new Error(
				`the session's model runtime has no model ${providerId}/default (extension providers: ${known}; errors: ${errors.join("; ") || "none"})`,
			);
		},
		api: (providerId) => providerApiName(options.id ?? "quickjs-test", providerId),
		rewrite: (text) => writeFileSync(join(pkg.dir, options.entry ?? "index.mjs"), text),
		close,
		[Symbol.asyncDispose]: close,
	};
}

/**
 * The decision behind rpi's checks on a declared `api` that pier's ports check on pier's API names instead: the
 * name is the same in every session running the extension; each session's model runtime holds its own.
 */
export const OWN_API_NAMES = "an API of its own per provider, in the session's model runtime (protocol-v1 §4.4)";

/** rpi's `provider_spec`: rpi fixture `fixture` as extension `id` with `provider`, in a session on its model. */
export const providerSession = (source: RpiSource, fixture: string, id: string, provider: string) =>
	openSession(source.fixture(fixture), { id, capabilities: ["provider"], model: `${provider}/default` });

export interface Turn {
	events: AssistantMessageEvent[];
	result: AssistantMessage;
}

/** One turn through the session's agent, as pi's loop makes it (over pi's transcript of `context`): every event, then
 * the final message. */
export async function streamTurn(
	session: OpenSession,
	model: Model<Api>,
	context: Context = { messages: [] },
	options: SimpleStreamOptions = {},
): Promise<Turn> {
	const stream = await session.pier.session.agent.streamFunction(model, normalizeContext(context), options);
	const events: AssistantMessageEvent[] = [];
	for await (const event of stream) events.push(event);
	return { events, result: await stream.result() };
}

/** The text of a message's text blocks, joined. */
export const textOf = (message: AssistantMessage): string =>
	message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");

/** The message a stream ended with: `done`'s, or `error`'s. */
export function terminal(events: readonly AssistantMessageEvent[]): AssistantMessage | undefined {
	for (const event of events) {
		if (event.type === "done") return event.message;
		if (event.type === "error") return event.error;
	}
	return undefined;
}
