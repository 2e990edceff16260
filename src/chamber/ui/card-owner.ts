/**
 * Which extension put a `pichamber.ui` card on the screen, and which command its buttons may run.
 *
 * A card's action names any command it likes, and its label says whatever it likes: a "Refresh" button could
 * run the chamber's own `/name`, or another extension's command. So a button runs only a command of the extension
 * that appended the card, as app surfaces do (app-owner.ts). Card entries are stamped with their extension as they
 * are written (persistence-watch.ts); a card sent as a custom message is stamped when it is sent, because pi may
 * write it much later (a steer or a follow-up), when the sender is no longer on the stack.
 */
import type { AgentSession, SessionEntry } from "@earendil-works/pi-coding-agent";
import { rowOf } from "../transcript.js";
import { ownerOf, withOwner } from "./app-owner.js";
import type { ComponentCard } from "./descriptors.js";

export const CARD_TYPE = "pichamber.ui";

type CustomMessage = { customType?: unknown; content?: unknown; details?: unknown };

function parsedContent(content: unknown): unknown {
	const text =
		typeof content === "string"
			? content
			: Array.isArray(content)
				? content.map((p) => (p?.type === "text" && typeof p.text === "string" ? p.text : "")).join("")
				: "";
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

/**
 * A card message with its owner stamped into its details (the transcript reads a card from the details, else from
 * JSON content, so content-only cards get their descriptor copied into the details). Other messages pass as they are.
 */
export function stampCardMessage<M>(message: M, owner: string | undefined): M {
	try {
		const m = message as CustomMessage;
		if (!m || typeof m !== "object" || m.customType !== CARD_TYPE) return message;
		const details = m.details ?? parsedContent(m.content);
		const stamped = withOwner(details, owner);
		return stamped === details ? message : ({ ...m, details: stamped } as M);
	} catch {
		// A hostile getter: the message goes as it is, and its card runs no command (its owner is not known).
		return message;
	}
}

const stampedSessions = new WeakSet<object>();

/**
 * Stamps every card that `session` sends as a custom message (pi's `sendMessage`, which reaches
 * `sendCustomMessage` synchronously from the sender) with `mounter()`, the extension sending it.
 */
export function stampMessageCards(session: AgentSession, mounter: () => string | undefined): void {
	if (stampedSessions.has(session)) return;
	stampedSessions.add(session);
	const original = session.sendCustomMessage.bind(session);
	session.sendCustomMessage = ((message, options) => {
		const owned = (message as CustomMessage)?.customType === CARD_TYPE ? stampCardMessage(message, mounter()) : message;
		return original(owned, options);
	}) as typeof session.sendCustomMessage;
}

/** The card an entry shows (a `pichamber.ui` entry or custom message) and the extension that put it there. */
export function cardOfEntry(entry: SessionEntry): { card: ComponentCard; owner: string | undefined } | undefined {
	const row = rowOf(entry);
	if (row?.kind !== "card" || row.card.kind !== "card") return undefined;
	let owner: string | undefined;
	if (entry.type === "custom") owner = ownerOf(entry.data);
	else if (entry.type === "custom_message") owner = ownerOf(entry.details);
	else if (entry.type === "message") owner = ownerOf((entry.message as { details?: unknown }).details);
	return { card: row.card, owner };
}

/** Why `/name` is not one of the card's buttons, or undefined when it is. */
export function cardActionProblem(card: ComponentCard, name: string): string | undefined {
	if (card.actions.some((a) => a.command === name)) return undefined;
	return `this card has no button for /${name}`;
}
