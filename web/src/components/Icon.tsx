/**
 * The tiny built-in sprite set extensions may name in `action.icon`. Strokes on a 24-unit grid; an unknown
 * name renders nothing, as the protocol promises.
 */
const ICONS: Record<string, string> = {
	play: "M7 4l13 8-13 8z",
	stop: "M6 6h12v12H6z",
	pause: "M7 5v14M17 5v14",
	refresh: "M20 11a8 8 0 1 0-2.3 5.7M20 4v7h-7",
	check: "M4 12l5 5L20 6",
	x: "M6 6l12 12M18 6L6 18",
	close: "M6 6l12 12M18 6L6 18",
	plus: "M12 5v14M5 12h14",
	minus: "M5 12h14",
	trash: "M4 7h16M9 7V4h6v3M6 7l1 13h10l1-13",
	edit: "M4 20h4L19 9l-4-4L4 16zM14 6l4 4",
	pencil: "M4 20h4L19 9l-4-4L4 16zM14 6l4 4",
	search: "M11 18a7 7 0 1 1 0-14 7 7 0 0 1 0 14zM16 16l4 4",
	folder: "M3 6h6l2 2h10v11H3z",
	file: "M6 3h8l4 4v14H6zM14 3v4h4",
	terminal: "M4 6l6 6-6 6M12 18h8",
	warning: "M12 3l10 18H2zM12 10v5M12 18v.5",
	info: "M12 22a10 10 0 1 1 0-20 10 10 0 0 1 0 20zM12 11v6M12 7v.5",
	"arrow-right": "M4 12h16M14 6l6 6-6 6",
	"arrow-left": "M20 12H4M10 6l-6 6 6 6",
	send: "M3 11l18-8-8 18-2-8z",
	pin: "M9 3h6l-1 6 4 4H6l4-4zM12 13v8",
	zap: "M13 2L4 14h7l-1 8 9-12h-7z",
	copy: "M8 8h12v12H8zM4 16V4h12",
	download: "M12 4v12M6 10l6 6 6-6M4 20h16",
	upload: "M12 20V8M6 14l6-6 6 6M4 4h16",
	settings: "M4 6h10M18 6h2M4 12h4M12 12h8M4 18h12M20 18h0M14 4v4M8 10v4M16 16v4",
	eye: "M2 12s4-7 10-7 10 7 10 7-4 7-10 7S2 12 2 12zM12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6z",
	clock: "M12 22a10 10 0 1 1 0-20 10 10 0 0 1 0 20zM12 6v6l4 2",
	bolt: "M13 2L4 14h7l-1 8 9-12h-7z",
	archive: "M3 4h18v4H3zM5 8v12h14V8M10 12h4",
	menu: "M4 6h16M4 12h16M4 18h16",
	key: "M8 19a5 5 0 1 1 3.9-8.1L21 2M17 6l3 3M14 9l2 2",
	shield: "M12 3l8 3v6c0 5-3.5 8-8 9-4.5-1-8-4-8-9V6z",
	phone: "M7 2h10v20H7zM11 18h2",
	bell: "M6 17v-6a6 6 0 0 1 12 0v6l2 2H4zM10 21h4",
	"log-out": "M10 4H4v16h6M15 8l4 4-4 4M19 12H9",
	camera: "M3 8h4l2-3h6l2 3h4v12H3zM12 17a4 4 0 1 0 0-8 4 4 0 0 0 0 8z",
	paperclip: "M20 12l-8 8a5 5 0 0 1-7-7l9-9a3.5 3.5 0 0 1 5 5l-9 9a2 2 0 0 1-3-3l8-8",
};

export function hasIcon(name: string | undefined): boolean {
	return !!name && Object.hasOwn(ICONS, name);
}

export function Icon({ name, class: cls }: { name: string | undefined; class?: string }) {
	if (!name || !Object.hasOwn(ICONS, name)) return null;
	return (
		<svg
			class={`icon ${cls ?? ""}`}
			viewBox="0 0 24 24"
			width="14"
			height="14"
			fill="none"
			stroke="currentColor"
			stroke-width="2"
			stroke-linecap="round"
			stroke-linejoin="round"
			aria-hidden="true"
		>
			<path d={ICONS[name]} />
		</svg>
	);
}

/** A button that is only an icon: its label is both the tooltip and what a screen reader says. */
export function IconButton({
	icon,
	label,
	testId,
	onClick,
}: {
	icon: string;
	label: string;
	testId?: string;
	onClick: () => void;
}) {
	return (
		<button type="button" class="icon-button" data-testid={testId} title={label} aria-label={label} onClick={onClick}>
			<Icon name={icon} />
		</button>
	);
}
