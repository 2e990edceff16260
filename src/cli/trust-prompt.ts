/**
 * The terminal's trust question, asked before pi's interactive UI takes the screen, with pi ≥ 0.79's five
 * choices. Only the interactive terminal asks; headless modes leave an undecided project untrusted.
 */
import { auditTrustOnce } from "../audit/trust-audit.js";
import { dirname } from "node:path";
import { createInterface } from "node:readline/promises";
import type { TrustDecision } from "../extensions/trust.js";
import { previewLines, previewProjectMcp } from "../extensions/trust-mcp.js";
import type { TrustStore, TrustValue } from "../extensions/trust-store.js";

interface Choice {
	label: string;
	trusted: boolean;
	updates: Array<[string, TrustValue]>;
}

export function trustChoices(cwd: string): Choice[] {
	const parent = dirname(cwd);
	return [
		{ label: "Trust", trusted: true, updates: [[cwd, true]] },
		...(parent !== cwd
			? [
					{
						label: `Trust parent folder (${parent})`,
						trusted: true,
						updates: [
							[parent, true],
							[cwd, null],
						] as Array<[string, TrustValue]>,
					},
				]
			: []),
		{ label: "Trust (this session only)", trusted: true, updates: [] },
		{ label: "Do not trust", trusted: false, updates: [[cwd, false]] },
		{ label: "Do not trust (this session only)", trusted: false, updates: [] },
	];
}

export async function askTrustInTerminal(store: TrustStore, decision: TrustDecision): Promise<boolean | undefined> {
	const choices = trustChoices(decision.cwd);
	const out = process.stderr;
	out.write(`\n${decision.cwd} has files pier would load: ${decision.resources.join(", ")}.\n`);
	// MCP servers are commands pi would start: the question names each one.
	const mcp = previewProjectMcp(decision.cwd);
	if (mcp) out.write(`${previewLines(mcp).join("\n")}\n`);
	out.write("Trusting it lets them run code and change pi's behaviour. Trust this project?\n");
	for (const [i, c] of choices.entries()) out.write(`  ${i + 1}) ${c.label}\n`);
	const rl = createInterface({ input: process.stdin, output: out });
	try {
		for (;;) {
			const answer = (await rl.question(`Choose 1-${choices.length} (Enter: do not trust this session): `)).trim();
			if (answer === "") return false;
			const choice = choices[Number(answer) - 1];
			if (!choice) continue;
			if (choice.updates.length > 0) store.setMany(choice.updates, "the terminal's trust question");
			else auditTrustOnce(store.agentDir, decision.cwd, choice.trusted, "the terminal's trust question");
			return choice.trusted;
		}
	} finally {
		rl.close();
	}
}
