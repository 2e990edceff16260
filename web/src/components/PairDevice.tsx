/**
 * "Pair a device": a one-time, short-lived sign-in link for a phone or another browser. The token travels in
 * the URL fragment, which browsers never send to a server or put in a Referer.
 */
import { useState } from "preact/hooks";
import { api, describeError } from "../api.js";

export function PairDevice() {
	const [link, setLink] = useState<{ url: string; expiresAt: number } | undefined>();
	const [error, setError] = useState<string | undefined>();

	const create = async () => {
		setError(undefined);
		try {
			const { token, expiresAt } = await api.createPairingLink();
			setLink({ url: `${window.location.origin}/#pair=${token}`, expiresAt });
		} catch (err) {
			setError(describeError(err));
		}
	};

	return (
		<details class="pair-device" onToggle={(e) => e.currentTarget.open && !link && void create()}>
			<summary data-testid="pair-device">Pair a device</summary>
			<div class="pair-device-body">
				{link && (
					<>
						<p>
							Open this link on the other device. It works once, until {new Date(link.expiresAt).toLocaleTimeString()}.
						</p>
						<input data-testid="pairing-link" readOnly value={link.url} onFocus={(e) => e.currentTarget.select()} />
						<div class="pair-device-buttons">
							<button type="button" onClick={() => void navigator.clipboard?.writeText(link.url)}>
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
			</div>
		</details>
	);
}
