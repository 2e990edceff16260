/**
 * "Pair a device": a one-time, short-lived sign-in link for a phone or another browser, for each address the
 * daemon serves (a phone needs the LAN one), as text and as a QR code; and every credential, to revoke. The
 * token travels in the URL fragment, which browsers never send to a server or put in a Referer.
 */
import { useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import { lazyModule } from "../lazy-module.js";
import { Credentials } from "./Credentials.js";

/** Only a pairing needs the QR encoder: it loads with the first code shown. */
const qrModule = lazyModule(() => import("qrcode-generator"));

interface Link {
	token: string;
	expiresAt: number;
	urls: string[];
}

/** The QR code of `text` as an SVG of dark modules (qrcode-generator, error correction M). */
function QrCode({ text }: { text: string }) {
	const qrcode = qrModule.use()?.default;
	if (!qrcode) return <div class="pair-qr" aria-busy="true" />;
	const qr = qrcode(0, "M");
	qr.addData(text);
	qr.make();
	const n = qr.getModuleCount();
	const cells: string[] = [];
	for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (qr.isDark(r, c)) cells.push(`M${c + 4},${r + 4}h1v1h-1z`);
	return (
		<svg
			class="pair-qr"
			data-testid="pairing-qr"
			viewBox={`0 0 ${n + 8} ${n + 8}`}
			role="img"
			aria-label="QR code of the sign-in link"
			shape-rendering="crispEdges"
		>
			<rect width="100%" height="100%" fill="#fff" />
			<path d={cells.join("")} fill="#000" />
		</svg>
	);
}

export function PairDevice() {
	const [link, setLink] = useState<Link | undefined>();
	const [address, setAddress] = useState<string>("");
	const [error, setError] = useState<string | undefined>();

	const create = async () => {
		setError(undefined);
		try {
			const { token, expiresAt, urls } = await api.createPairingLink();
			// This page's own origin first: it is the one that surely reaches the daemon from here.
			const here = `${window.location.origin}/`;
			const all = [here, ...(urls ?? []).filter((u) => u !== here)];
			setLink({ token, expiresAt, urls: all });
			setAddress((current) =>
				current && all.includes(current)
					? current
					: (all.find((u) => !/\/\/(127\.|localhost|\[::1\])/.test(u)) ?? here),
			);
		} catch (err) {
			setError(describeError(err));
		}
	};
	const url = link ? `${address}#pair=${link.token}` : "";

	return (
		<details class="pair-device" onToggle={(e) => e.currentTarget.open && !link && void create()}>
			<summary data-testid="pair-device">Pair a device</summary>
			<div class="pair-device-body">
				{link && (
					<>
						<p>
							Open this link on the other device, or scan it. It works once, until{" "}
							{new Date(link.expiresAt).toLocaleTimeString()}.
						</p>
						{link.urls.length > 1 && (
							<select
								data-testid="pairing-address"
								aria-label="Address"
								value={address}
								onChange={(e) => setAddress(e.currentTarget.value)}
							>
								{link.urls.map((u) => (
									<option key={u} value={u}>
										{u}
									</option>
								))}
							</select>
						)}
						<QrCode text={url} />
						<input data-testid="pairing-link" readOnly value={url} onFocus={(e) => e.currentTarget.select()} />
						<div class="pair-device-buttons">
							<button type="button" onClick={() => void navigator.clipboard?.writeText(url)}>
								Copy
							</button>
							<button type="button" onClick={() => void create()}>
								New link
							</button>
						</div>
					</>
				)}
				{error && (
					<div class="inline-error" role="alert">
						{error}
					</div>
				)}
				<Credentials />
			</div>
		</details>
	);
}
