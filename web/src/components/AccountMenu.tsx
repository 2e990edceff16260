/**
 * The account actions (Providers, Grants, Pair a device, Sign out) behind one header button, so on a phone the
 * session title keeps the row. Choosing one opens its panel under the header; choosing it again, Close or
 * Escape closes it.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { AuditLog } from "./AuditLog.js";
import { Icon, IconButton } from "./Icon.js";
import { NotifySettings, useNotifyWatcher } from "./NotifySettings.js";
import { lazyView } from "../lazy-view.js";

// The panels are drawn only when picked from the menu: their code is fetched then.
const Providers = lazyView(
	() => import("./Providers.js"),
	(m) => m.Providers,
	"Providers",
);
const Grants = lazyView(
	() => import("./Grants.js"),
	(m) => m.Grants,
	"Grants",
);
const Permissions = lazyView(
	() => import("./Permissions.js"),
	(m) => m.Permissions,
	"Permissions",
);
const Packages = lazyView(
	() => import("./Packages.js"),
	(m) => m.Packages,
	"Packages",
);
const PairDevice = lazyView(
	() => import("./PairDevice.js"),
	(m) => m.PairDevice,
	"Pair a device",
);

type PanelId = "providers" | "grants" | "permissions" | "audit" | "packages" | "pair-device" | "notifications";

const PANELS: { id: PanelId; label: string; icon: string; body: () => ComponentChildren }[] = [
	{ id: "providers", label: "Providers", icon: "key", body: () => <Providers /> },
	{ id: "grants", label: "Grants", icon: "shield", body: () => <Grants /> },
	// Issue 34: the permission rules by source, and the audit trail of every decision.
	{ id: "permissions", label: "Permissions", icon: "settings", body: () => <Permissions /> },
	{ id: "audit", label: "Audit", icon: "clock", body: () => <AuditLog /> },
	// Issue 34, the package catalog.
	{ id: "packages", label: "Packages", icon: "archive", body: () => <Packages /> },
	{ id: "pair-device", label: "Pair a device", icon: "phone", body: () => <PairDevice /> },
	{ id: "notifications", label: "Notifications", icon: "bell", body: () => <NotifySettings /> },
];

export function AccountMenu({ onSignOut }: { onSignOut: () => void }) {
	const [menuOpen, setMenuOpen] = useState(false);
	const [panel, setPanel] = useState<PanelId | undefined>();
	const root = useRef<HTMLDivElement>(null);
	useNotifyWatcher();

	useEffect(() => {
		if (!menuOpen && !panel) return;
		const onKey = (e: KeyboardEvent) => {
			if (e.key !== "Escape") return;
			if (menuOpen) setMenuOpen(false);
			else setPanel(undefined);
		};
		// A tap elsewhere closes the menu (a panel stays: it holds forms half filled in).
		const onDown = (e: PointerEvent) => {
			if (menuOpen && !root.current?.contains(e.target as Node)) setMenuOpen(false);
		};
		document.addEventListener("keydown", onKey);
		document.addEventListener("pointerdown", onDown);
		return () => {
			document.removeEventListener("keydown", onKey);
			document.removeEventListener("pointerdown", onDown);
		};
	}, [menuOpen, panel]);

	const open = PANELS.find((p) => p.id === panel);
	return (
		<div class="account" ref={root}>
			<button
				type="button"
				class="account-button"
				data-testid="account-menu"
				aria-haspopup="menu"
				aria-expanded={menuOpen}
				title="Account and settings"
				onClick={() => setMenuOpen(!menuOpen)}
			>
				<Icon name="menu" />
				<span class="account-button-label">Account</span>
			</button>
			{menuOpen && (
				<div class="account-menu" role="menu" data-testid="account-menu-items">
					{PANELS.map((p) => (
						<button
							key={p.id}
							type="button"
							role="menuitem"
							data-testid={p.id}
							onClick={() => {
								setMenuOpen(false);
								setPanel(panel === p.id ? undefined : p.id);
							}}
						>
							<Icon name={p.icon} />
							{p.label}
						</button>
					))}
					<button type="button" role="menuitem" data-testid="sign-out" onClick={onSignOut}>
						<Icon name="log-out" />
						Sign out
					</button>
				</div>
			)}
			{open && (
				<section class="account-panel" role="dialog" aria-label={open.label} data-testid={`${open.id}-panel`}>
					<div class="account-panel-head">
						<h2>{open.label}</h2>
						<IconButton icon="close" label={`Close ${open.label}`} onClick={() => setPanel(undefined)} />
					</div>
					{open.body()}
				</section>
			)}
		</div>
	);
}
