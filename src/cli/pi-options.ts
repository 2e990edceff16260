/**
 * pi 1.6's own options (its `--help`), with its names, short forms and value rules, for `run`, the
 * terminal and RPC. pier's own options and commands are parsed in args.ts.
 */
import type { CliArgs } from "./args.js";

export class ArgsError extends Error {
	override name = "ArgsError";
}

const list = (text: string): string[] =>
	text
		.split(",")
		.map((name) => name.trim())
		.filter((name) => name !== "");

/**
 * Applies one pi option; false when `flag` is not one. `value()` takes the next word (or `--flag=value`);
 * `peek`/`skip` serve the options whose value is optional (`--list-models [search]`).
 */
export function piOption(
	args: CliArgs,
	flag: string,
	value: () => string,
	peek: () => string | undefined,
	skip: () => void,
): boolean {
	switch (flag) {
		case "--model":
			args.model = value();
			return true;
		case "--provider":
			args.provider = value();
			return true;
		case "--models":
			args.models = list(value());
			return true;
		case "--api-key":
			args.apiKey = value();
			return true;
		case "--thinking":
			args.thinking = value();
			return true;
		case "--list-models": {
			const next = peek();
			if (next !== undefined && !next.startsWith("-") && !next.startsWith("@")) {
				args.listModels = next;
				skip();
			} else args.listModels = true;
			return true;
		}
		case "-t":
		case "--tools":
			args.tools = list(value());
			return true;
		case "-nt":
		case "--no-tools":
			args.noTools = "all";
			return true;
		case "-nbt":
		case "--no-builtin-tools":
			args.noTools ??= "builtin";
			return true;
		case "-xt":
		case "--exclude-tools":
			args.excludeTools = list(value());
			return true;
		case "--no-mcp":
			args.noMcp = true;
			return true;
		case "-n":
		case "--name": {
			const name = value().trim();
			if (name === "") throw new ArgsError("--name needs a non-empty value");
			args.name = name;
			return true;
		}
		case "--session-id":
			args.sessionId = value();
			return true;
		case "--tui-mode": {
			const mode = value();
			if (mode !== "regular" && mode !== "fullscreen")
				throw new ArgsError(`--tui-mode must be regular or fullscreen, got "${mode}"`);
			args.tuiMode = mode;
			return true;
		}
		case "--use-theme": {
			const theme = value();
			if (theme.startsWith("-")) throw new ArgsError("--use-theme needs a theme name");
			args.useTheme = theme;
			return true;
		}
		case "--system-prompt":
			args.systemPrompt = value();
			return true;
		case "--append-system-prompt":
			args.appendSystemPrompt.push(value());
			return true;
		case "--skill":
			args.skills.push(value());
			return true;
		case "--prompt-template":
			args.promptTemplates.push(value());
			return true;
		case "--theme":
			args.themes.push(value());
			return true;
		case "-ns":
		case "--no-skills":
			args.noSkills = true;
			return true;
		case "-np":
		case "--no-prompt-templates":
			args.noPromptTemplates = true;
			return true;
		case "--no-themes":
			args.noThemes = true;
			return true;
		case "-nc":
		case "--no-context-files":
			args.noContextFiles = true;
			return true;
		case "--fork":
			args.fork = value();
			return true;
		case "--session-dir":
			args.sessionDir = value();
			return true;
		case "-r":
		case "--resume":
			args.resume = true;
			return true;
		case "--export":
			args.export = value();
			return true;
		case "--verbose":
			args.verbose = true;
			return true;
		case "--offline":
			args.offline = true;
			return true;
		default:
			return false;
	}
}
