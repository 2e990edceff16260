/**
 * "Permissions": the permission rules by source (`GET/POST/DELETE /api/pi/permissions`): the global
 * settings.json and a trusted project's .pi/settings.json, whose allow rules do not count (a project may only
 * make the agent ask more or do less). A rule is added to allow, ask or deny, or removed; the daemon checks it.
 */
import { useEffect, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import type { PermissionList, PermissionSource, PermissionsView } from "../types.js";
import { visible } from "../visible.js";

const LISTS: readonly PermissionList[] = ["deny", "ask", "allow"];
const MEANING: Record<PermissionList, string> = {
	deny: "refused",
	ask: "asks first",
	allow: "runs without asking",
};

export function Permissions() {
	const [cwd, setCwd] = useState("");
	const [view, setView] = useState<PermissionsView | undefined>();
	const [error, setError] = useState<string | undefined>();
	const [list, setList] = useState<PermissionList>("deny");
	const [scope, setScope] = useState<"global" | "project">("global");
	const [rule, setRule] = useState("");

	const load = async (dir = cwd) => {
		try {
			setView(await api.permissions(dir));
			setError(undefined);
		} catch (err) {
			setError(describeError(err));
		}
	};
	useEffect(() => void load(), []);

	const change = async (
		method: "POST" | "DELETE",
		body: { scope: "global" | "project"; list: PermissionList; rule: string },
	) => {
		setError(undefined);
		try {
			setView(
				await api.changePermission(method, { ...body, ...(body.scope === "project" ? { cwd: cwd || "." } : {}) }),
			);
			return true;
		} catch (err) {
			setError(describeError(err));
			return false;
		}
	};

	const add = async (e: Event) => {
		e.preventDefault();
		if (await change("POST", { scope, list, rule: rule.trim() })) setRule("");
	};

	const projectTrusted = view?.project.trusted === true;
	const section = (title: string, source: PermissionSource) => (
		<section class="perm-source" data-testid={`perm-${source.scope}`}>
			<h3>
				{title} <code class="muted">{source.file}</code>
			</h3>
			{LISTS.map((l) => (
				<div key={l} class="perm-list">
					<div class="muted">
						<strong>{l}</strong> · {MEANING[l]}
						{source.scope === "project" && l === "allow" && " (not applied: a project may only add ask and deny)"}
					</div>
					{source[l].length === 0 ? (
						<div class="muted perm-empty">none</div>
					) : (
						<ul>
							{source[l].map((r) => (
								<li key={r} data-testid="perm-rule" data-list={l}>
									<code>{visible(r)}</code>
									<button
										type="button"
										data-testid="perm-remove"
										aria-label={`Remove ${l} rule ${r}`}
										onClick={() => void change("DELETE", { scope: source.scope, list: l, rule: r })}
									>
										Remove
									</button>
								</li>
							))}
						</ul>
					)}
				</div>
			))}
			{source.problems.map((p) => (
				<div key={p} class="inline-error">
					{p}
				</div>
			))}
		</section>
	);

	return (
		<div class="permissions-body">
			<p class="muted">
				What the agent's tools may do: <code>bash(rm *)</code>, <code>read(**/.env)</code>, <code>write</code>,{" "}
				<code>mcp__server__tool</code>. Deny wins over ask, ask over allow.
			</p>
			<form
				class="perm-project"
				onSubmit={(e) => {
					e.preventDefault();
					void load();
				}}
			>
				<label>
					Project
					<input
						type="text"
						data-testid="perm-cwd"
						placeholder="the daemon's directory"
						value={cwd}
						onInput={(e) => setCwd(e.currentTarget.value)}
					/>
				</label>
				<button type="submit">Show</button>
			</form>
			<form class="perm-add" data-testid="perm-add" onSubmit={(e) => void add(e)}>
				<select
					aria-label="List"
					data-testid="perm-add-list"
					value={list}
					onChange={(e) => setList(e.currentTarget.value as PermissionList)}
				>
					{LISTS.map((l) => (
						<option key={l} value={l}>
							{l}
						</option>
					))}
				</select>
				<select
					aria-label="Where"
					data-testid="perm-add-scope"
					value={scope}
					onChange={(e) => setScope(e.currentTarget.value as "global" | "project")}
				>
					<option value="global">global</option>
					<option value="project" disabled={!projectTrusted}>
						this project
					</option>
				</select>
				<input
					type="text"
					aria-label="Rule"
					data-testid="perm-add-rule"
					placeholder="bash(rm *)"
					value={rule}
					onInput={(e) => setRule(e.currentTarget.value)}
				/>
				<button type="submit" data-testid="perm-add-button">
					Add
				</button>
			</form>
			{error && (
				<div class="inline-error" role="alert" data-testid="perm-error">
					{error}
				</div>
			)}
			{view && section("Global", view.global)}
			{view?.project.source ? (
				section("This project", view.project.source)
			) : view ? (
				<p class="muted" data-testid="perm-project-untrusted">
					{view.project.cwd} is not trusted: its rules are not read. Trust it to add ask and deny rules for it.
				</p>
			) : null}
		</div>
	);
}
