/**
 * pi's user bash (`!cmd`) as its terminal shows it: the command, its output as it arrives, the exit code;
 * `!!` runs are marked as kept out of the model's context.
 */
import type { LiveBash } from "../state.js";
import { visible, visibleText } from "../visible.js";

interface BashProps {
	command: string;
	output: string;
	excludeFromContext: boolean;
	running: boolean;
	exitCode?: number | undefined;
	cancelled?: boolean;
	truncated?: boolean;
	rowId?: string;
}

export function BashView(p: BashProps) {
	const failed = !p.running && !p.cancelled && p.exitCode !== undefined && p.exitCode !== 0;
	return (
		<div
			class={`row row-bash${p.excludeFromContext ? " bash-excluded" : ""}${failed ? " bash-failed" : ""}`}
			data-testid={p.rowId ? "row" : "bash-live"}
			data-kind="bash"
			{...(p.rowId ? { "data-row-id": p.rowId } : {})}
		>
			<div class="bash-command">
				<span class="bash-prompt" aria-hidden="true">
					{p.excludeFromContext ? "!!" : "!"}
				</span>
				<code>{visible(p.command)}</code>
				{p.running && <span class="spinner" role="status" aria-label="running" />}
			</div>
			{p.output && <pre class="bash-output">{visibleText(p.output)}</pre>}
			<div class="bash-status muted">
				{p.running ? "running…" : p.cancelled ? "cancelled" : p.exitCode === undefined ? "done" : `exit ${p.exitCode}`}
				{p.truncated && " · output truncated"}
				{p.excludeFromContext && " · not sent to the model"}
			</div>
		</div>
	);
}

export function LiveBashView({ run }: { run: LiveBash }) {
	return (
		<BashView
			command={run.command}
			output={run.output}
			excludeFromContext={run.excludeFromContext}
			running={!run.ended}
			exitCode={run.exitCode}
		/>
	);
}
