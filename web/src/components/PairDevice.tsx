/**
 * "Pair a device": a one-time, short-lived sign-in link for a phone or another browser, for each address the
 * daemon serves (a phone needs the LAN one), as text and as a QR code; and every credential, to revoke. The
 * token travels in the URL fragment, which browsers never send to a server or put in a Referer.
 */
import { useEffect, useState } from "preact/hooks";
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

/** An address no other device can open: loopback, or the "any address" a daemon binds to but nobody dials. */
export function onlyThisMachine(url: string): boolean {
	const host = new URL(url).hostname;
	return /^(127\.|localhost$|\[::1\]$|0\.0\.0\.0$|\[::\]$)/.test(host);
}

/** The daemon listens on loopback only: a phone cannot reach it, and no QR code is offered. */
function LoopbackOnly({ pairCommand }: { pairCommand: string }) {
	return (
		<div class="pair-loopback" data-testid="pairing-loopback">
			<p>
				This daemon listens on this machine only (loopback), so a phone cannot open a link to it. To pair a phone on
				your network, restart it with an address other devices reach and a password:
			</p>
			<pre>
				<code>{`${pairCommand.replace(/ pair$/, "")} serve --host 0.0.0.0 --ui-password <a password>`}</code>
			</pre>
			<p class="muted">
				Then open Pair a device again (or run <code>{pairCommand}</code>) for a link and QR code. The link below works
				in another browser on this machine.
			</p>
		</div>
	);
}

export function PairDevice() {
	const [link, setLink] = useState<Link | undefined>();
	const [address, setAddress] = useState<string>("");
	const [error, setError] = useState<string | undefined>();
	const [pairCommand, setPairCommand] = useState("pier pair");

	const create = async () => {
		setError(undefined);
		void api.authStatus().then(
			(s) => s.pairCommand && setPairCommand(s.pairCommand),
			() => {},
		);
		try {
			const { token, expiresAt, urls } = await api.createPairingLink();
			// This page's own origin first: it is the one that surely reaches the daemon from here.
			const here = `${window.location.origin}/`;
			const all = [here, ...(urls ?? []).filter((u) => u !== here)];
			setLink({ token, expiresAt, urls: all });
			setAddress((current) =>
				current && all.includes(current) ? current : (all.find((u) => !onlyThisMachine(u)) ?? here),
			);
		} catch (err) {
			setError(describeError(err));
		}
	};
	useEffect(() => void create(), []);
	const url = link ? `${address}#pair=${link.token}` : "";
	const reachable = link ? link.urls.filter((u) => !onlyThisMachine(u)) : [];

	return (
		<div class="pair-device-body">
			{link && (
				<>
					{reachable.length === 0 && <LoopbackOnly pairCommand={pairCommand} />}
					<p>
						{reachable.length > 0 ? "Open this link on the other device, or scan it. It works" : "This link works"}{" "}
						once, until {new Date(link.expiresAt).toLocaleTimeString()}.
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
					{!onlyThisMachine(address) && <QrCode text={url} />}
					<input
						data-testid="pairing-link"
						aria-label="Sign-in link"
						readOnly
						value={url}
						onFocus={(e) => e.currentTarget.select()}
					/>
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
	);
}
