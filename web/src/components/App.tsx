/** Sign-in gate: pair from `#pair=<token>` if present, then ask the daemon whether we are signed in. */
import { useCallback, useEffect, useState } from "preact/hooks";
import { api, describeError, setUnauthorizedHandler } from "../api.js";
import { Chamber } from "./Chamber.js";
import { ConfirmProvider } from "./Confirm.js";
import { Login } from "./Login.js";
import { ShareView } from "./ShareView.js";
import { ToastProvider } from "./Toasts.js";
import { takeShareFromUrl } from "../share-token.js";

type Auth =
	| { state: "checking" }
	| { state: "signed-in" }
	| { state: "signed-out"; passwordConfigured: boolean; pairCommand?: string; notice?: string };

function pairToken(): string | undefined {
	const match = /^#pair=([^&]+)/.exec(window.location.hash);
	return match?.[1] ? decodeURIComponent(match[1]) : undefined;
}

/** A tab opened from a share link (`#share=`) is that link's page alone (ShareView.tsx), never the signed-in app. */
export function App() {
	const [shared] = useState(takeShareFromUrl);
	if (shared) {
		return (
			<ToastProvider>
				<ConfirmProvider>
					<ShareView />
				</ConfirmProvider>
			</ToastProvider>
		);
	}
	return <SignedInApp />;
}

function SignedInApp() {
	const [auth, setAuth] = useState<Auth>({ state: "checking" });

	const check = useCallback(async (notice?: string) => {
		try {
			const s = await api.authStatus();
			setAuth(
				s.authenticated
					? { state: "signed-in" }
					: { state: "signed-out", passwordConfigured: s.passwordConfigured, pairCommand: s.pairCommand, notice },
			);
		} catch (err) {
			setAuth({ state: "signed-out", passwordConfigured: true, notice: describeError(err) });
		}
	}, []);

	const signedOut = useCallback(() => {
		setAuth((a) =>
			a.state === "signed-out"
				? a
				: { state: "signed-out", passwordConfigured: true, notice: "Your sign-in ended. Please sign in again." },
		);
		void check("Your sign-in ended. Please sign in again.");
	}, [check]);

	useEffect(() => {
		setUnauthorizedHandler(signedOut);
		return () => setUnauthorizedHandler(undefined);
	}, [signedOut]);

	useEffect(() => {
		const boot = async () => {
			const token = pairToken();
			let notice: string | undefined;
			if (token) {
				try {
					await api.pair(token);
				} catch (err) {
					notice = `The pairing link did not work: ${describeError(err)}`;
				} finally {
					// The token is single-use; keep it out of the address bar, history and bookmarks.
					history.replaceState(null, "", window.location.pathname + window.location.search);
				}
			}
			await check(notice);
		};
		void boot();
		// Pasting a pairing link into a tab that already shows the app only changes the fragment: no reload.
		const onHash = () => {
			if (pairToken()) void boot();
		};
		window.addEventListener("hashchange", onHash);
		return () => window.removeEventListener("hashchange", onHash);
	}, [check]);

	const signOut = useCallback(async () => {
		try {
			await api.logout();
		} catch {
			// Signed out either way from this page's point of view.
		}
		await check();
	}, [check]);

	return (
		<ToastProvider>
			<ConfirmProvider>
				{auth.state === "checking" && <div class="placeholder muted">Connecting…</div>}
				{auth.state === "signed-out" && (
					<Login
						passwordConfigured={auth.passwordConfigured}
						pairCommand={auth.pairCommand}
						notice={auth.notice}
						onSignedIn={() => void check()}
					/>
				)}
				{auth.state === "signed-in" && <Chamber onSignOut={signOut} onUnauthorized={signedOut} />}
			</ConfirmProvider>
		</ToastProvider>
	);
}
