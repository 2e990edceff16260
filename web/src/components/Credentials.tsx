/**
 * Every credential that can reach the chamber: device tokens, signed-in browsers (this one marked) and pairing
 * links not yet used, each with what minted it and a Revoke. Revoking one revokes everything minted through it,
 * so the list is reloaded afterwards rather than edited.
 */
import { useEffect, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import type { Credential } from "../types.js";
import { relativeTime } from "../format.js";
import { visible } from "../visible.js";

const KIND_LABEL: Record<Credential["kind"], string> = {
	device: "Device tokens",
	browser: "Signed-in browsers",
	pairing: "Unused pairing links",
};

function label(c: Credential, current: string): string {
	if (c.kind === "device") return visible(c.name ?? c.id);
	if (c.kind === "browser") {
		const how = c.via === "link" ? "pairing link" : c.via === "password" ? "password" : "sign-in";
		return `${c.id === current ? "This browser" : "Browser"} (${how})`;
	}
	return c.source === "pier pair" ? "Link from pier pair" : "Pairing link";
}

function details(c: Credential, names: Map<string, string>): string {
	const parts: string[] = [];
	if (c.createdAt) parts.push(`created ${relativeTime(c.createdAt)}`);
	if (c.kind !== "pairing") parts.push(c.lastUsedAt ? `used ${relativeTime(c.lastUsedAt)}` : "never used");
	if (c.kind === "pairing" && c.expiresAt) parts.push(`expires ${new Date(c.expiresAt).toLocaleTimeString()}`);
	if (c.mintedBy) parts.push(`minted by ${names.get(c.mintedBy) ?? "a credential no longer signed in"}`);
	return parts.join(" · ");
}

export function Credentials() {
	const [list, setList] = useState<{ credentials: Credential[]; current: string } | undefined>();
	const [error, setError] = useState<string | undefined>();
	const load = () =>
		api.listCredentials().then(
			(r) => setList(r),
			(err) => setError(describeError(err)),
		);
	useEffect(() => void load(), []);
	if (!list && !error) return null;
	const all = list?.credentials ?? [];
	const names = new Map(all.map((c) => [c.id, label(c, list?.current ?? "")]));
	const revoke = (c: Credential) => {
		setError(undefined);
		void api.revokeCredential(c.id).then(
			({ revoked }) => {
				// This browser went with it: the page has nothing left to show but the sign-in.
				if (list && revoked.includes(list.current)) window.location.reload();
				else void load();
			},
			(err) => setError(describeError(err)),
		);
	};
	return (
		<div class="devices" data-testid="credential-list">
			{(["device", "browser", "pairing"] as const).map((kind) => {
				const rows = all.filter((c) => c.kind === kind);
				if (rows.length === 0) return null;
				return (
					<div key={kind}>
						<h3>{KIND_LABEL[kind]}</h3>
						<ul data-testid={kind === "device" ? "device-list" : `${kind}-list`}>
							{rows.map((c) => (
								<li
									key={c.id}
									data-testid={kind === "device" ? "device" : "credential"}
									data-device-id={kind === "device" ? c.id : undefined}
									data-credential-id={c.id}
									data-kind={c.kind}
								>
									<span>{label(c, list?.current ?? "")}</span>
									<span class="muted">{details(c, names)}</span>
									<button
										type="button"
										data-testid={kind === "device" ? "revoke-device" : "revoke-credential"}
										title="Revoke it, and everything minted through it"
										onClick={() => revoke(c)}
									>
										Revoke
									</button>
								</li>
							))}
						</ul>
					</div>
				);
			})}
			{error && (
				<div class="inline-error" role="alert">
					{error}
				</div>
			)}
		</div>
	);
}
