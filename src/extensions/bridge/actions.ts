/** Protocol session actions → the real pi session. */
import type { ThinkingLevel } from "@earendil-works/pi-agent-core";
import type { ImageContent, Model, TextContent } from "@earendil-works/pi-ai";
import type { ExtensionAPI, ExtensionCommandContext, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { RuntimeAction } from "../protocol/frames.js";

type Content = string | (TextContent | ImageContent)[];

const isCommandContext = (ctx: ExtensionContext): ctx is ExtensionCommandContext =>
	typeof (ctx as Partial<ExtensionCommandContext>).waitForIdle === "function";

async function waitForIdle(ctx: ExtensionContext, signal: AbortSignal): Promise<void> {
	if (isCommandContext(ctx)) return ctx.waitForIdle();
	// Outside a command pi offers no idle promise; the session's own flag is the truth.
	while (!ctx.isIdle()) {
		if (signal.aborted) throw new Error("wait_for_idle was cancelled");
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
}

export async function performAction(
	pi: ExtensionAPI,
	ctx: ExtensionContext,
	action: RuntimeAction,
	signal: AbortSignal,
): Promise<unknown> {
	switch (action.kind) {
		case "send_message":
			pi.sendMessage(
				{
					customType: action.message.customType,
					content: action.message.content as Content,
					display: action.message.display,
					...(action.message.details !== undefined ? { details: action.message.details } : {}),
				},
				{ deliverAs: action.delivery, triggerTurn: action.triggerTurn ?? false },
			);
			return null;
		case "send_user_message":
			if (action.delivery === "nextTurn") throw new Error("send_user_message cannot be delivered as nextTurn");
			pi.sendUserMessage(action.content as Content, { deliverAs: action.delivery });
			return null;
		case "append_entry":
			pi.appendEntry(action.customType, action.data);
			// pi appends synchronously and the new entry becomes the leaf: its id is rpi's answer.
			return ctx.sessionManager.getLeafId();
		case "set_session_name":
			pi.setSessionName(action.name);
			return null;
		case "set_label":
			pi.setLabel(action.entryId, action.label);
			return null;
		case "get_active_tools":
			return pi.getActiveTools();
		case "get_all_tools":
			return pi.getAllTools().map((t) => ({ name: t.name, description: t.description }));
		case "set_active_tools":
			pi.setActiveTools(action.toolNames);
			return null;
		case "get_commands":
			return pi
				.getCommands()
				.map((c) => (c.description ? { name: c.name, description: c.description } : { name: c.name }));
		case "set_model": {
			const wanted = action.model as Partial<Model<string>> | null;
			const model = wanted?.provider && wanted.id ? ctx.modelRegistry.find(wanted.provider, wanted.id) : undefined;
			if (!model)
				throw new Error(
					`unknown model ${JSON.stringify(wanted?.provider ? `${wanted.provider}/${wanted.id}` : wanted)}`,
				);
			return await pi.setModel(model);
		}
		case "set_thinking_level":
			pi.setThinkingLevel(action.level as ThinkingLevel);
			return null;
		case "abort":
			ctx.abort();
			return null;
		case "shutdown":
			ctx.shutdown();
			return null;
		case "compact":
			ctx.compact(action.customInstructions ? { customInstructions: action.customInstructions } : {});
			return null;
		case "reload":
			await commandContext(ctx, "reload").reload();
			return null;
		case "wait_for_idle":
			await waitForIdle(ctx, signal);
			return null;
		case "get_flag":
			return pi.getFlag(action.name) ?? null;
		case "get_thinking_level":
			return pi.getThinkingLevel();
		case "get_system_prompt":
			return ctx.getSystemPrompt();
		case "get_session_branch":
			return ctx.sessionManager.getBranch();
		case "new_session":
			return {
				cancelled: (
					await commandContext(ctx, action.kind).newSession(
						action.parentSession !== undefined ? { parentSession: action.parentSession } : {},
					)
				).cancelled,
			};
		case "fork":
			return {
				cancelled: (
					await commandContext(ctx, action.kind).fork(
						action.entryId,
						action.position ? { position: action.position } : {},
					)
				).cancelled,
			};
		case "navigate_tree": {
			const { kind: _kind, targetId, ...options } = action;
			return { cancelled: (await commandContext(ctx, action.kind).navigateTree(targetId, options)).cancelled };
		}
		case "switch_session":
			return { cancelled: (await commandContext(ctx, action.kind).switchSession(action.sessionPath)).cancelled };
	}
}

/**
 * pi offers session replacement (new, fork, tree navigation, switch) only to command handlers: outside one the
 * request is refused with the reason, never attempted on a context that cannot do it.
 */
function commandContext(ctx: ExtensionContext, what: string): ExtensionCommandContext {
	if (!isCommandContext(ctx)) {
		throw new Error(`${what} is available only while a command runs (pi offers it to command handlers alone)`);
	}
	return ctx;
}
